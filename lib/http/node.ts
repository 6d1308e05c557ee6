import type { IncomingMessage, ServerResponse } from "node:http";
import type { TLSSocket } from "node:tls";
import { readBody } from "@/lib/http/body";
import { clientIpOf, isSecure } from "@/lib/http/client-ip";
import type { HttpRequest, HttpResponse } from "@/lib/http/types";

/**
 * Header names lower-cased, repeated headers joined with ", " (from rawHeaders, in arrival order), in a
 * null-prototype object: a header named `__proto__` or `constructor` is an ordinary own key.
 */
export function headersOf(req: IncomingMessage): Record<string, string> {
  const out = Object.create(null) as Record<string, string>;
  const raw = req.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i].toLowerCase();
    out[name] = name in out ? `${out[name]}, ${raw[i + 1]}` : raw[i + 1];
  }
  return out;
}

/**
 * Reads a Node request into an {@link HttpRequest}. The body (lib/http/body.ts) is kept up to
 * `maxBodyBytes`; past that (by Content-Length or by counting) it is read and dropped, `bodyTooLarge` is set and `bodySize` still
 * counts every byte. `pathname`/`query` default to the request URL's.
 */
export async function readNodeRequest(
  req: IncomingMessage,
  opts: { maxBodyBytes: number; trustProxy: number; pathname?: string; query?: string },
): Promise<HttpRequest> {
  const headers = headersOf(req);
  const url = req.url ?? "/";
  const q = url.indexOf("?");
  const read = await readBody(req, { maxBytes: opts.maxBodyBytes, declaredLength: headers["content-length"], countAll: true });
  return {
    method: (req.method ?? "GET").toUpperCase(),
    pathname: opts.pathname ?? (q === -1 ? url : url.slice(0, q)),
    query: opts.query ?? (q === -1 ? "" : url.slice(q + 1)),
    headers,
    body: read.body,
    bodySize: read.size,
    bodyTooLarge: read.tooLarge,
    clientIp: clientIpOf(req.socket.remoteAddress, headers, opts.trustProxy),
    secure: isSecure(Boolean((req.socket as TLSSocket).encrypted), headers, opts.trustProxy),
  };
}

/** Writes an {@link HttpResponse} to a Node response. */
export function writeNodeResponse(res: ServerResponse, response: HttpResponse): void {
  const body = response.body === undefined ? undefined : typeof response.body === "string" ? Buffer.from(response.body) : response.body;
  const headers: Record<string, string | string[] | number> = { ...response.headers };
  if (body !== undefined) headers["content-length"] = body.length;
  res.writeHead(response.status, headers);
  res.end(body);
}
