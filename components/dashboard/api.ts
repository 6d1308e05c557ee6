/**
 * Browser-side calls of the gateway API (docs/gateway-api.md) for the dashboard: same-origin fetches
 * that carry the session cookie (lib/teams/dashboard-session.ts), so the server answers with the signed-in
 * user's team. A 401 (signed out, or the user was deleted) goes to the sign-in page.
 */
export const GATEWAY = "/api/2025-07-01";
export const AUTH = "/dashboard/api/auth";

/** An API answer that was not 2xx, with the API's own explanation. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly body: unknown,
  ) {
    super(message);
  }
}

/** The most specific message of a gateway or outbound error body. */
function messageOf(status: number, body: unknown): string {
  const b = (body ?? {}) as { message?: unknown; data?: { message?: unknown } | unknown[] };
  const detail = Array.isArray(b.data) ? b.data.join("; ") : typeof (b.data as { message?: unknown })?.message === "string" ? (b.data as { message: string }).message : null;
  const main = typeof b.message === "string" ? b.message : `HTTP ${status}`;
  return detail && detail !== main ? `${main}: ${detail}` : main;
}

/** Fetches `path` (under GATEWAY unless absolute) as JSON; throws ApiError with the API's message. */
export async function api<T>(path: string, init: { method?: string; body?: unknown; signal?: AbortSignal } = {}): Promise<T> {
  const url = path.startsWith("/") ? path : `${GATEWAY}/${path}`;
  let res: Response;
  try {
    res = await fetch(url, {
      method: init.method ?? "GET",
      headers: init.body === undefined ? { accept: "application/json" } : { accept: "application/json", "content-type": "application/json" },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
      credentials: "same-origin",
      cache: "no-store",
      signal: init.signal,
    });
  } catch (err) {
    if ((err as Error).name === "AbortError") throw err;
    throw new ApiError(0, "Could not reach the server. Check your connection and try again.", null);
  }
  const text = await res.text();
  let body: unknown = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = text;
  }
  if (res.status === 401 && typeof window !== "undefined") {
    window.location.assign(`/dashboard/sign-in?callbackUrl=${encodeURIComponent(window.location.pathname + window.location.search)}`);
  }
  if (!res.ok) throw new ApiError(res.status, messageOf(res.status, body), body);
  return body as T;
}

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

/** A query string of `params`, skipping empty values; arrays repeat the name. */
export function qs(params: Record<string, string | number | boolean | string[] | null | undefined>): string {
  const sp = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (v === null || v === undefined || v === "") continue;
    if (Array.isArray(v)) v.forEach((x) => sp.append(k, x));
    else sp.set(k, String(v));
  }
  const s = sp.toString();
  return s ? `?${s}` : "";
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

export type Paged<T> = { pagination: { order_by: string; dir: string; limit: number; next?: string; prev?: string }; count: number; models: T[] };

export type GatewayEvent = {
  id: string;
  webhook_id: string;
  source_id: string;
  destination_id: string;
  request_id: string;
  attempts: number;
  last_attempt_at: string | null;
  next_attempt_at: string | null;
  response_status: number | null;
  error_code: string | null;
  status: string;
  successful_at: string | null;
  created_at: string;
  updated_at: string;
  data?: { url: string | null; method: string; path: string; query: string; headers: Record<string, string>; body: unknown; body_encoding?: string };
};

export type Attempt = {
  id: string;
  event_id: string;
  response_status: number | null;
  attempt_number: number;
  trigger: string;
  error_code: string | null;
  body: unknown;
  requested_url: string | null;
  http_method: string | null;
  status: string;
  delivery_latency: number | null;
  response_latency: number | null;
  created_at: string;
};

export type Connection = { id: string; name: string; full_name: string; source: { id: string; name: string }; destination: { id: string; name: string } };

export type BulkOperation = {
  id: string;
  type?: string;
  query: Record<string, unknown>;
  number: number;
  estimated_count: number;
  estimated_batch: number;
  processed_batch: number;
  completed_count: number;
  failed_count: number | null;
  in_progress: boolean;
  progress: number;
  created_at: string;
  completed_at: string | null;
  cancelled_at: string | null;
};
