/**
 * The one browser API client of the console, the dashboard and the portal: same-origin JSON fetches
 * (cookies go along, nothing is cached) and one error type. Each surface makes its thin adapter with
 * {@link createApiClient}: its base path, its extra headers (the portal's CSRF header) and how its error
 * body reads (docs/architecture.md "API surfaces": console `{code, status, data}` and 429 `{error,
 * message, retry_after}`, gateway `{handled, status, message, data}`, outbound `{status, message, data?}`).
 * Foundation code for the browser: it imports nothing.
 */

/**
 * An answer that was not 2xx, or no answer at all (`status` 0: the network failed). `body` is the parsed
 * JSON body (the raw text when it was not JSON, null when empty); `retryAfter` is in seconds (the body's
 * `retry_after`, else the `Retry-After` header), null when neither says.
 */
export class ApiError extends Error {
  override readonly name = "ApiError";
  constructor(
    readonly status: number,
    message: string,
    readonly body: unknown = null,
    readonly retryAfter: number | null = null,
  ) {
    super(message);
  }

  /** The validation messages of the body's `data` array (every surface's 422), else []. */
  get messages(): string[] {
    const data = isRecord(this.body) ? this.body.data : undefined;
    return Array.isArray(data) ? data.filter((m): m is string => typeof m === "string") : [];
  }
}

/** True for a plain object (not null, not an array). */
export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** The message of a failed answer, from its status and parsed body; null when the body says nothing useful. */
type DescribeError = (status: number, body: unknown) => string | null;

export type ApiClientOptions = {
  /** The URL of a path: e.g. a base prefix. Default: the path as given. */
  url?: (path: string) => string;
  /** Headers sent with every request (besides `accept` and, with a body, `content-type`). */
  headers?: Record<string, string>;
  /** This surface's error body reader. */
  describe?: DescribeError;
  /** The message when neither the request's nor the surface's reader has one. Default "HTTP {status}". */
  fallback?: (status: number) => string;
  /** Called with every non-2xx status before the error is thrown (the dashboard sends a 401 to sign-in). */
  onError?: (status: number) => void;
};

export type ApiRequest = {
  method?: string;
  /** Sent as JSON. */
  body?: unknown;
  signal?: AbortSignal;
  /** A message for this call's failures, read before the surface's (null: use the surface's). */
  describe?: DescribeError;
};

/** A surface's fetcher: resolves to the parsed JSON body (null for an empty one); throws {@link ApiError}. */
type ApiClient = <T>(path: string, init?: ApiRequest) => Promise<T>;

export const NETWORK_ERROR = "Could not reach the server. Check your connection and try again.";

/** Parses a response text as JSON; the text itself when it is not JSON, null when empty. */
function parseBody(text: string): unknown {
  if (!text) return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function retryAfterOf(res: Response, body: unknown): number | null {
  if (isRecord(body) && typeof body.retry_after === "number" && Number.isFinite(body.retry_after)) return body.retry_after;
  const header = res.headers.get("retry-after");
  const n = header === null ? NaN : Number(header);
  return Number.isFinite(n) ? n : null;
}

/**
 * Makes a surface's API fetcher (see the module comment). An aborted request rethrows the AbortError;
 * any other network failure is an ApiError with status 0 and {@link NETWORK_ERROR}.
 */
export function createApiClient(options: ApiClientOptions = {}): ApiClient {
  const { url = (p: string) => p, headers = {}, describe, fallback = (s: number) => `HTTP ${s}`, onError } = options;
  return async function request<T>(path: string, init: ApiRequest = {}): Promise<T> {
    let res: Response;
    try {
      res = await fetch(url(path), {
        method: init.method ?? "GET",
        headers: { accept: "application/json", ...headers, ...(init.body === undefined ? {} : { "content-type": "application/json" }) },
        body: init.body === undefined ? undefined : JSON.stringify(init.body),
        credentials: "same-origin",
        cache: "no-store",
        signal: init.signal,
      });
    } catch (err) {
      if ((err as Error)?.name === "AbortError") throw err;
      throw new ApiError(0, NETWORK_ERROR);
    }
    const body = parseBody(await res.text());
    if (!res.ok) {
      onError?.(res.status);
      const message = init.describe?.(res.status, body) ?? describe?.(res.status, body) ?? fallback(res.status);
      throw new ApiError(res.status, message, body, retryAfterOf(res, body));
    }
    return body as T;
  };
}

/** A query string of `params` (`?` included when not empty), skipping undefined, null and empty values; arrays repeat the name. */
export function qs(params: Record<string, string | number | boolean | string[] | null | undefined> | [string, string | undefined][]): string {
  const sp = new URLSearchParams();
  const entries = Array.isArray(params) ? params : Object.entries(params);
  for (const [k, v] of entries) {
    if (v === null || v === undefined || v === "") continue;
    if (Array.isArray(v)) v.forEach((x) => sp.append(k, x));
    else sp.append(k, String(v));
  }
  const s = sp.toString();
  return s ? `?${s}` : "";
}
