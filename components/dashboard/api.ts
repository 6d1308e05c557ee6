/**
 * Browser-side calls of the gateway API (docs/gateway-api.md) for the dashboard: same-origin fetches
 * that carry the session cookie (lib/teams/dashboard-session.ts), so the server answers with the signed-in
 * user's team. A 401 (signed out, or the user was deleted) goes to the sign-in page.
 */
import type { TAttempt } from "@/lib/gateway/attempts/schemas";
import type { TBulkOperation } from "@/lib/gateway/bulk/schemas";
import type { ZConnection } from "@/lib/gateway/connections/schemas";
import type { ZEvent } from "@/lib/gateway/events/schemas";
import type { Page } from "@/lib/http/paging";
import type { z } from "zod";
import { ApiError, type ApiClientOptions, createApiClient, isRecord } from "@/components/ui/api-client";

export { qs } from "@/components/ui/api-client";

const GATEWAY = "/api/2025-07-01";
export const AUTH = "/dashboard/api/auth";

/** Kept for the dashboard's modules: the one browser API error (components/ui/api-client.ts). */
export { ApiError };

/** The most specific message of a gateway or outbound error body: `message`, with its `data` details. */
function describe(status: number, body: unknown): string {
  const b = (isRecord(body) ? body : {}) as { message?: unknown; data?: { message?: unknown } | unknown[] };
  const detail = Array.isArray(b.data)
    ? b.data.join("; ")
    : typeof (b.data as { message?: unknown })?.message === "string"
      ? (b.data as { message: string }).message
      : null;
  const main = typeof b.message === "string" ? b.message : `HTTP ${status}`;
  // The detail is often the end of the message already ("Invalid value for \"body\": …"): said once.
  return detail && !main.includes(detail) ? `${main}: ${detail}` : main;
}

/** Sends a signed-out browser (401: signed out, or the user was deleted) to the sign-in page, back here after. */
function toSignIn(status: number) {
  if (status === 401 && typeof window !== "undefined") {
    window.location.assign(`/dashboard/sign-in?callbackUrl=${encodeURIComponent(window.location.pathname + window.location.search)}`);
  }
}

/** The dashboard's client settings (exported for tests, which give them a base URL). */
export const GATEWAY_CLIENT: ApiClientOptions = { url: (path) => (path.startsWith("/") ? path : `${GATEWAY}/${path}`), describe, onError: toSignIn };

/** Fetches `path` (under GATEWAY unless absolute) as JSON; throws ApiError with the API's message. */
export const api = createApiClient(GATEWAY_CLIENT);

/** Most records `apiAll` reads (pages of 250): pickers and name lookups of a very large team stop there. */
export const ALL_MAX = 5_000;

/**
 * Every record of the gateway list `path` (its query string may filter and order), page by page with
 * the API's `next` cursor, up to ALL_MAX. Answers `{models}` like one page. Throws ApiError.
 */
export async function apiAll<T>(path: string): Promise<{ models: T[] }> {
  const models: T[] = [];
  const sep = path.includes("?") ? "&" : "?";
  for (let next: string | undefined, first = true; (first || next) && models.length < ALL_MAX; first = false) {
    const page = await api<Paged<T>>(`${path}${sep}limit=250${next ? `&next=${encodeURIComponent(next)}` : ""}`);
    models.push(...page.models);
    next = page.pagination?.next ?? undefined;
  }
  return { models };
}

/** Posts a next-auth form (sign-in callback or sign-out) with its CSRF token; returns the `error` of the answer's URL, or null. */
export async function authPost(path: string, fields: Record<string, string>): Promise<string | null> {
  const { csrfToken } = await api<{ csrfToken: string }>(`${AUTH}/csrf`);
  const res = await fetch(`${AUTH}/${path}`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ ...fields, csrfToken, json: "true" }),
    credentials: "same-origin",
  });
  const body = (await res.json().catch(() => ({}))) as { url?: string };
  if (!res.ok && !body.url) return `HTTP ${res.status}`;
  return body.url ? new URL(body.url, window.location.origin).searchParams.get("error") : null;
}

/*
 * The API's models, as the server's schemas define them (type-only imports: nothing of the server runs in
 * the browser). Dates are ISO strings on the wire, as the schemas say.
 */
export type Paged<T> = Page<T>;
/** An event as the dashboard's API version (2025-07-01) answers it: `data` in its full form. */
export type GatewayEvent = z.infer<typeof ZEvent>;
export type Attempt = TAttempt;
export type Connection = z.infer<typeof ZConnection>;
export type BulkOperation = TBulkOperation;
