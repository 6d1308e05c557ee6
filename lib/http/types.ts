/** A framework-free HTTP request, as the custom server and route handlers both can build it. */
export type HttpRequest = {
  method: string;
  /** Path without query, as received (percent-encoding kept). */
  pathname: string;
  /** Raw query string without `?` ("" when none). */
  query: string;
  /** Lower-case header names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  /** Body bytes; empty when none or when it was too large to keep. */
  body: Buffer;
  /** Bytes received in the body (may exceed `body.length` when the body was cut). */
  bodySize: number;
  /** True when the body passed the surface's size limit and was not kept. */
  bodyTooLarge: boolean;
  /** Client address: socket peer, or X-Forwarded-For when TRUST_PROXY is set. */
  clientIp: string;
  /** True on https (socket, or X-Forwarded-Proto when TRUST_PROXY is set). */
  secure: boolean;
};

/** A framework-free HTTP response. */
export type HttpResponse = {
  status: number;
  headers?: Record<string, string | string[]>;
  body?: string | Buffer;
};

/** A JSON response with `content-type: application/json`. */
export function json(status: number, body: unknown, headers: Record<string, string | string[]> = {}): HttpResponse {
  return { status, headers: { "content-type": "application/json; charset=utf-8", ...headers }, body: JSON.stringify(body) };
}
