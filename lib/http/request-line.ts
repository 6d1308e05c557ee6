/**
 * Checks of the request line that server.ts makes before routing (issue 15 §1 "Malformed input"), so a
 * malformed path or an unexpected method gets a 4xx in the error body of the surface it addressed
 * instead of reaching Next.js or PostgreSQL:
 *   - a request target that is not a path (`OPTIONS *`, absolute-form) → 400;
 *   - a path segment that is not valid UTF-8 percent-encoding (`/%FF`), or that decodes to U+0000 → 404
 *     (no id or endpoint can be named so; like any unknown or malformed id);
 *   - a method other than GET HEAD POST PUT PATCH DELETE OPTIONS → 405 with `Allow`.
 * Ingestion (`/e/…`) is exempt from the path and method checks: it captures any path as received and
 * answers methods itself (405 UNSUPPORTED_HTTP_METHOD per source, shared/spec/console.md).
 */
import type { HttpResponse } from "@/lib/http/types";
import { json } from "@/lib/http/types";

/** Methods every surface but ingestion serves. */
export const SERVED_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] as const;
const SERVED = new Set<string>(SERVED_METHODS);

type Surface = "ingest" | "cli" | "gateway" | "console";

function surfaceOf(pathname: string): Surface {
  if (pathname.startsWith("/e/")) return "ingest";
  if (pathname.startsWith("/cli/")) return "cli";
  if (pathname === "/api" || pathname.startsWith("/api/")) return "gateway";
  return "console";
}

/** `status`/`message` in the error body of `surface` (shared/spec/*.md, lib/http/errors.ts). */
const STATUS_NAMES = { 400: ["BAD_REQUEST", "Bad Request"], 404: ["NOT_FOUND", "Not Found"], 405: ["METHOD_NOT_ALLOWED", "Method Not Allowed"] } as const;

function surfaceError(surface: Surface, status: keyof typeof STATUS_NAMES, message: string, headers: Record<string, string> = {}): HttpResponse {
  const [code, title] = STATUS_NAMES[status];
  if (surface === "gateway") return json(status, { handled: true, status, message: title, data: { message }, code }, headers);
  if (surface === "cli") return json(status, { error: code, message }, headers);
  return json(status, { code, status, data: [message] }, headers);
}

/**
 * The answer for a page, static file or unknown path (what server.ts hands to Next.js outside `/api/`)
 * requested with a method other than GET or HEAD: 405 in the console's error body (Next.js would
 * answer some of them 500). Null when the method is GET or HEAD.
 */
export function pageMethodRefusal(method: string): HttpResponse | null {
  return method === "GET" || method === "HEAD" ? null : surfaceError("console", 405, `${method} is not supported here`, { allow: "GET, HEAD" });
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
  return null;
}
