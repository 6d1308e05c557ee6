/**
 * Browser-side calls of the console API (docs/console-api.md). Same-origin fetches: the session
 * cookie goes along, so new sources land in the visitor's workspace.
 */
import type { TSourcePreview, TTestUrl } from "@/lib/console/schemas";
import { isPublicId, lastPathSegment } from "@/components/format";

export type CreateError =
  | { kind: "rate_limited"; message: string; retryAfter: number }
  | { kind: "invalid"; messages: string[] }
  | { kind: "other"; message: string };

export class CreateTestUrlError extends Error {
  constructor(readonly detail: CreateError) {
    super(detail.kind === "invalid" ? detail.messages.join("; ") : detail.message);
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** `POST /`; resolves to the test URL and the public id of its source, or throws CreateTestUrlError. */
export async function createTestUrl(input: { type?: string; name?: string } = {}): Promise<{ testUrl: TTestUrl; id: string }> {
  const body: Record<string, string> = {};
  if (input.type) body.type = input.type;
  const name = input.name?.trim();
  if (name) body.name = name;

  let res: Response;
  try {
    res = await fetch("/", {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json" },
      body: JSON.stringify(body),
      credentials: "same-origin",
      cache: "no-store",
    });
  } catch {
    throw new CreateTestUrlError({ kind: "other", message: "Could not reach the server. Check your connection and try again." });
  }
  let data: unknown = null;
  try {
    data = await res.json();
  } catch {
    data = null;
  }

  if (res.status === 429) {
    const header = Number(res.headers.get("retry-after"));
    const retryAfter = isObject(data) && typeof data.retry_after === "number" ? data.retry_after : Number.isFinite(header) ? header : 60;
    const message = isObject(data) && typeof data.message === "string" ? data.message : "Too many test URLs created. Please wait a moment.";
    throw new CreateTestUrlError({ kind: "rate_limited", message, retryAfter: Math.max(1, Math.ceil(retryAfter)) });
  }
  if (res.status === 422) {
    const messages =
      isObject(data) && Array.isArray(data.data) ? data.data.filter((m): m is string => typeof m === "string") : [];
    throw new CreateTestUrlError({ kind: "invalid", messages: messages.length ? messages : ["The request was not valid."] });
  }
  if (!res.ok || !isObject(data) || typeof data.inspect_url !== "string") {
    const messages = isObject(data) && Array.isArray(data.data) ? data.data.filter((m): m is string => typeof m === "string") : [];
    throw new CreateTestUrlError({
      kind: "other",
      message: messages[0] ?? `Could not create a test URL (HTTP ${res.status}). Please try again.`,
    });
  }
  const id = lastPathSegment(data.inspect_url);
  if (!isPublicId(id)) throw new CreateTestUrlError({ kind: "other", message: "The server returned an unexpected inspect URL." });
  return { testUrl: data as unknown as TTestUrl, id };
}

export class PreviewError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** `GET /{id}` with `Accept: application/json`: the source preview. */
export async function fetchPreview(publicId: string, signal?: AbortSignal): Promise<TSourcePreview> {
  const res = await fetch(`/${encodeURIComponent(publicId)}`, {
    headers: { accept: "application/json" },
    cache: "no-store",
    credentials: "same-origin",
    signal,
  });
  if (!res.ok) {
    throw new PreviewError(res.status, res.status === 404 ? "This test URL no longer exists." : `Could not load requests (HTTP ${res.status}).`);
  }
  const data: unknown = await res.json();
  if (!isObject(data) || !Array.isArray(data.requests)) throw new PreviewError(res.status, "Unexpected response from the server.");
  return data as unknown as TSourcePreview;
}
