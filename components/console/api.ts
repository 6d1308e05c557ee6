/**
 * Browser-side calls of the console API (docs/console-api.md), over the shared client
 * (components/ui/api-client.ts). Same-origin fetches: the session cookie goes along, so new sources land
 * in the visitor's workspace. Errors are {@link ApiError}; the console's bodies are 422 `{code, status,
 * data: string[]}` and 429 `{error, message, retry_after}` (docs/architecture.md "API surfaces").
 */
import type { TConsoleDeliveries } from "@/lib/console/deliveries";
import type { TSourcePreview, TTestUrl } from "@/lib/console/schemas";
import type { WorkspaceSource } from "@/lib/console/workspace";
import { isPublicId, lastPathSegment } from "@/components/console/format";
import { ApiError, type ApiClientOptions, createApiClient, isRecord } from "@/components/ui/api-client";

export { ApiError };

/** One of the visitor's test URLs as the console pages list them (the server's workspace source, trimmed). */
export type ConsoleSource = Pick<WorkspaceSource, "public_id" | "name" | "type" | "created_at" | "request_count">;

/** The workspace's sources as {@link ConsoleSource}s (what a page hands to the browser: no ids, no URLs). */
export function consoleSources(sources: readonly WorkspaceSource[]): ConsoleSource[] {
  return sources.map(({ public_id, name, type, created_at, request_count }) => ({ public_id, name, type, created_at, request_count }));
}

/** A console error body's first message: 429's `message`, else the first of `data`. */
function describe(_status: number, body: unknown): string | null {
  if (!isRecord(body)) return null;
  if (typeof body.message === "string") return body.message;
  const first = Array.isArray(body.data) ? body.data.find((m): m is string => typeof m === "string") : undefined;
  return first ?? null;
}

/** The console's client settings (exported for tests, which give them a base URL). */
export const CONSOLE_CLIENT: ApiClientOptions = { describe };

const api = createApiClient(CONSOLE_CLIENT);

/** The app path of one captured request's sub-resource (`events`, `retry`, `raw`). */
export function requestPath(publicId: string, requestId: string, tail: "events" | "retry" | "raw"): string {
  return `/${encodeURIComponent(publicId)}/requests/${encodeURIComponent(requestId)}/${tail}`;
}

/** Why creating a test URL failed, as the create forms show it. */
export type CreateError =
  { kind: "rate_limited"; message: string; retryAfter: number } | { kind: "invalid"; messages: string[] } | { kind: "other"; message: string };

/** The {@link CreateError} of anything `createTestUrl` threw. */
export function createErrorOf(err: unknown): CreateError {
  if (!(err instanceof ApiError)) return { kind: "other", message: "Something went wrong. Please try again." };
  if (err.status === 429) {
    const message = isRecord(err.body) && typeof err.body.message === "string" ? err.body.message : "Too many test URLs created. Please wait a moment.";
    return { kind: "rate_limited", message, retryAfter: Math.max(1, Math.ceil(err.retryAfter ?? 60)) };
  }
  if (err.status === 422) return { kind: "invalid", messages: err.messages.length ? err.messages : ["The request was not valid."] };
  return { kind: "other", message: err.message };
}

/**
 * `POST /`: resolves to the test URL and the public id of its source. Throws {@link ApiError} (status 0
 * for a network failure or an answer without a usable `inspect_url`); read it with {@link createErrorOf}.
 */
export async function createTestUrl(input: { type?: string; name?: string } = {}): Promise<{ testUrl: TTestUrl; id: string }> {
  const body: Record<string, string> = {};
  if (input.type) body.type = input.type;
  const name = input.name?.trim();
  if (name) body.name = name;

  const data = await api<unknown>("/", {
    method: "POST",
    body,
    describe: (status, b) => describe(status, b) ?? `Could not create a test URL (HTTP ${status}). Please try again.`,
  });
  if (!isRecord(data) || typeof data.inspect_url !== "string") throw new ApiError(0, "The server returned an unexpected answer.", data);
  const id = lastPathSegment(data.inspect_url);
  if (!isPublicId(id)) throw new ApiError(0, "The server returned an unexpected inspect URL.", data);
  return { testUrl: data as TTestUrl, id };
}

/**
 * `GET /{id}` with `Accept: application/json`: the source preview, newest 100 first; `filter.before` (a request id)
 * gives the 100 before that request, `filter.q` only those containing the text (docs/console-api.md "Source preview").
 * Throws ApiError (404: the test URL is gone; 422: a bad search text).
 */
export async function fetchPreview(publicId: string, signal?: AbortSignal, filter: { before?: string; q?: string } = {}): Promise<TSourcePreview> {
  const params = new URLSearchParams();
  if (filter.before) params.set("before", filter.before);
  if (filter.q !== undefined) params.set("q", filter.q);
  const query = params.size ? `?${params}` : "";
  const data = await api<unknown>(`/${encodeURIComponent(publicId)}${query}`, {
    signal,
    describe: (status) => (status === 404 ? "This test URL no longer exists." : `Could not load requests (HTTP ${status}).`),
  });
  if (!isRecord(data) || !Array.isArray(data.requests)) throw new ApiError(200, "Unexpected response from the server.", data);
  return data as TSourcePreview;
}

/** `GET /{id}/requests/{request_id}/events`: the request's events, attempts and ignored events. Throws ApiError. */
export function fetchDeliveries(publicId: string, requestId: string, signal?: AbortSignal): Promise<TConsoleDeliveries> {
  return api<TConsoleDeliveries>(requestPath(publicId, requestId, "events"), { signal, describe: (status) => `Could not load deliveries (${status})` });
}

/**
 * `POST /{id}/requests/{request_id}/retry`: new events for the request's connections (none when nothing
 * listens). Throws ApiError: 403 when this browser's workspace did not create the test URL, 429 when
 * retrying too often.
 */
export function retryRequest(publicId: string, requestId: string): Promise<{ event_ids: string[] }> {
  return api<{ event_ids: string[] }>(requestPath(publicId, requestId, "retry"), {
    method: "POST",
    describe: (status, b) => describe(status, b) ?? (status === 429 ? "Too many retries. Please wait a moment." : `Retry failed (${status})`),
  });
}

/** `PATCH /{id}`: renames the test URL; resolves to the stored name. Throws ApiError (403 not the owner, 409 name taken, 422 bad name). */
export async function renameTestUrl(publicId: string, name: string): Promise<string> {
  const data = await api<{ name: string }>(`/${encodeURIComponent(publicId)}`, {
    method: "PATCH",
    body: { name },
    describe: (status, b) => describe(status, b) ?? `Could not rename (HTTP ${status}).`,
  });
  return data.name;
}

/** `DELETE /{id}`: deletes the test URL and its requests. Throws ApiError (403 not the owner, 404 already gone). */
export async function deleteTestUrl(publicId: string): Promise<void> {
  await api<unknown>(`/${encodeURIComponent(publicId)}`, {
    method: "DELETE",
    describe: (status, b) => describe(status, b) ?? `Could not delete (HTTP ${status}).`,
  });
}
