/**
 * Checks of the request line that server.ts makes before routing (docs/gateway-api.md "Errors",
 * docs/outbound.md "Errors"), so a malformed path or an unexpected method gets a 4xx in the error body
 * of the surface it addressed (surfaceOf) instead of reaching Next.js or PostgreSQL:
 *   - a request target that is not a path (`OPTIONS *`, absolute-form) → 400;
 *   - a path segment that is not valid UTF-8 percent-encoding (`/%FF`), or that decodes to U+0000 → 404
 *     (no id or endpoint can be named so; like any unknown or malformed id);
 *   - a method other than GET HEAD POST PUT PATCH DELETE OPTIONS → 405 with `Allow`;
 *   - on the gateway and outbound APIs, a query parameter whose percent-encoding is not UTF-8 → 400.
 * Ingestion (`/e/…`) is exempt from the path and method checks: it captures any path as received and
 * answers methods itself (405 UNSUPPORTED_HTTP_METHOD per source, docs/console-api.md#eidpath).
 */
import { badlyEncodedParameter } from "@/lib/http/query";
import type { HttpResponse } from "@/lib/http/types";
import { json } from "@/lib/http/types";

/** Methods every surface but ingestion serves. */
const SERVED_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] as const;
const SERVED = new Set<string>(SERVED_METHODS);

/**
 * The surfaces of a request line, each with its own error body: the gateway API (`/api/…`), the CLI
 * channel (`/cli/…`), the outbound API (`/outbound/…`), the tenant portal (`/portal…`) and the
 * dashboard with its API (`/dashboard…`), and the console (every other path). Ingestion (`/e/…`) answers
 * for itself.
 */
export type Surface = "ingest" | "cli" | "gateway" | "outbound" | "portal" | "dashboard" | "console";

const under = (pathname: string, root: string) => pathname === root || pathname.startsWith(`${root}/`);

/** The surface `pathname` (the path of the request target, still percent-encoded) addresses. */
export function surfaceOf(pathname: string): Surface {
  if (pathname.startsWith("/e/")) return "ingest";
  if (pathname.startsWith("/cli/")) return "cli";
  if (under(pathname, "/api")) return "gateway";
  if (under(pathname, "/outbound")) return "outbound";
  if (under(pathname, "/portal")) return "portal";
  if (under(pathname, "/dashboard")) return "dashboard";
  return "console";
}

/** `status`/`message` in the error body of `surface` (each surface's docs "Errors" section, lib/http/errors.ts). */
const STATUS_NAMES = { 400: ["BAD_REQUEST", "Bad Request"], 404: ["NOT_FOUND", "Not Found"], 405: ["METHOD_NOT_ALLOWED", "Method Not Allowed"] } as const;

/**
 * A request-line error in the body of `surface`: the gateway's `{handled, status, message, data, code}`,
 * the CLI channel's `{error, message}`, `{status, message}` for the outbound API and the two browser
 * surfaces beside it (portal, dashboard and its API: docs/outbound.md, docs/portal.md, docs/dashboard.md),
 * and the console's `{code, status, data}` elsewhere.
 */
function surfaceError(surface: Surface, status: keyof typeof STATUS_NAMES, message: string, headers: Record<string, string> = {}): HttpResponse {
  const [code, title] = STATUS_NAMES[status];
  if (surface === "gateway") return json(status, { handled: true, status, message: title, data: { message }, code }, headers);
  if (surface === "cli") return json(status, { error: code, message }, headers);
  if (surface === "outbound" || surface === "portal" || surface === "dashboard") return json(status, { status, message }, headers);
  return json(status, { code, status, data: [message] }, headers);
}

/**
 * The answer for a page, static file or unknown path (what server.ts hands to Next.js outside the APIs)
 * requested with a method other than GET or HEAD: 405 in the error body of the surface `pathname`
 * belongs to (Next.js would answer some of them 500). Null when the method is GET or HEAD.
 */
export function pageMethodRefusal(method: string, pathname = "/"): HttpResponse | null {
  return method === "GET" || method === "HEAD" ? null : surfaceError(surfaceOf(pathname), 405, `${method} is not supported here`, { allow: "GET, HEAD" });
}

/**
 * The 4xx answer for a request line server.ts must not route, or null when it may. `url` is the raw
 * request target (`req.url`), `method` upper-case. Never throws.
 */
export function checkRequestLine(method: string, url: string): HttpResponse | null {
  if (!url.startsWith("/")) return surfaceError("console", 400, `The request target must be a path starting with "/"`);
  const q = url.indexOf("?");
  const pathname = q === -1 ? url : url.slice(0, q);
  const surface = surfaceOf(pathname);
  if (surface === "ingest") return null;
  for (const segment of pathname.split("/")) {
    if (!segment.includes("%")) continue;
    let decoded: string;
    try {
      decoded = decodeURIComponent(segment);
    } catch {
      return surfaceError(surface, 404, "The path is not valid UTF-8 percent-encoding");
    }
    if (decoded.includes("\0")) return surfaceError(surface, 404, "The path contains U+0000");
  }
  if (!SERVED.has(method)) return surfaceError(surface, 405, `${method} is not supported`, { allow: SERVED_METHODS.join(", ") });
  // The APIs' queries: checked here on the raw target, because Next.js re-encodes the query it hands
  // on (a `%FF` arrives as U+FFFD); lib/http/query.ts parseApiQuery checks the rest.
  if ((surface === "gateway" || surface === "outbound") && q !== -1 && badlyEncodedParameter(url.slice(q + 1)) !== null) {
    return surfaceError(surface, 400, "Query parameters must be valid UTF-8 percent-encoding");
  }
  return null;
}
