/**
 * Compression of JSON answers by the client's `Accept-Encoding` (docs/console-api.md "Compression"): brotli when
 * accepted, else gzip, for JSON bodies of at least {@link COMPRESS_MIN_BYTES}. The JSON itself is unchanged, so
 * this is invisible to the API's contract. Runs on libuv's thread pool (zlib's async form), not on the event loop.
 */
import { promisify } from "node:util";
import zlib from "node:zlib";
import type { HttpResponse } from "@/lib/http/types";

/** Smaller bodies are sent as they are: compressing them saves less than the headers cost. */
export const COMPRESS_MIN_BYTES = 1024;

const brotli = promisify(zlib.brotliCompress);
const gzip = promisify(zlib.gzip);

/** The encoding to answer with for an `Accept-Encoding` header: "br", "gzip" or null (none accepted, or no header). */
export function chosenEncoding(acceptEncoding: string | undefined): "br" | "gzip" | null {
  if (!acceptEncoding) return null;
  const accepted = new Map<string, number>();
  for (const part of acceptEncoding.split(",")) {
    const [name, ...params] = part.trim().toLowerCase().split(";");
    const q = params.map((p) => /^\s*q=([0-9.]+)\s*$/.exec(p)).find(Boolean);
    accepted.set(name.trim(), q ? Number(q[1]) : 1);
  }
  const wants = (name: string) => (accepted.get(name) ?? accepted.get("*") ?? 0) > 0;
  if (wants("br")) return "br";
  if (wants("gzip")) return "gzip";
  return null;
}

/**
 * `response` compressed for `acceptEncoding` when its body is JSON of at least {@link COMPRESS_MIN_BYTES} and it has no
 * `content-encoding` yet (with `content-encoding` and `vary: accept-encoding` set); otherwise `response` itself
 * (still with `vary`, for a JSON body, so caches keep the forms apart). Throws nothing a caller must handle.
 */
export async function compressedResponse(response: HttpResponse, acceptEncoding: string | undefined): Promise<HttpResponse> {
  const type = String(response.headers?.["content-type"] ?? "");
  if (response.body === undefined || !type.includes("json") || response.headers?.["content-encoding"]) return response;
  const headers = { ...response.headers, vary: response.headers?.vary ? `${String(response.headers.vary)}, accept-encoding` : "accept-encoding" };
  const body = typeof response.body === "string" ? Buffer.from(response.body) : response.body;
  const encoding = chosenEncoding(acceptEncoding);
  if (!encoding || body.length < COMPRESS_MIN_BYTES) return { ...response, headers };
  const packed =
    encoding === "br"
      ? await brotli(body, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 4, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: body.length } })
      : await gzip(body, { level: 6 });
  return { ...response, headers: { ...headers, "content-encoding": encoding }, body: packed };
}
