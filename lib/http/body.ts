/**
 * The one request-body reader of every surface (docs/architecture.md "Code layout": the HTTP kit's body
 * reading): Node requests (server.ts's hot path, the console, the CLI channel: lib/http/node.ts) and
 * fetch `Request`s (Next.js route handlers: ingestion under `next dev`, the gateway and outbound API
 * wrappers). Each surface keeps its own limit and its own error for a body over it; this only reads.
 */

/** A body as read: its bytes (empty when over the limit), the bytes received, and whether it passed the limit. */
export type BodyRead = { body: Buffer; size: number; tooLarge: boolean };

type ReadBodyOptions = {
  /** Largest body kept, bytes. */
  maxBytes: number;
  /** The request's Content-Length header, if any: a declared length over `maxBytes` is too large at once. */
  declaredLength?: string | null;
  /**
   * Ingestion (true): always read to the end, so `size` counts every byte of a body over the limit (it is
   * stored with the rejected request). The APIs (false): a declared length over the limit is not read.
   */
  countAll: boolean;
};

const asBuffer = (chunk: Uint8Array): Buffer => (Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));

/**
 * Reads a body from its `chunks` (a Node `IncomingMessage`, a fetch `Request`'s `body`; null for none).
 * Bytes are kept up to `maxBytes`; past that the body is read to its end and dropped (never held in
 * memory whole), `tooLarge` is set and `body` is empty. Rejects only when the stream fails (the client
 * went away).
 */
export async function readBody(chunks: AsyncIterable<Uint8Array> | null, opts: ReadBodyOptions): Promise<BodyRead> {
  const declared = Number(opts.declaredLength ?? 0);
  let tooLarge = Number.isFinite(declared) && declared > opts.maxBytes;
  if (tooLarge && !opts.countAll) return { body: Buffer.alloc(0), size: declared, tooLarge };
  const kept: Buffer[] = [];
  let size = 0;
  if (chunks) {
    for await (const chunk of chunks) {
      size += chunk.length;
      if (size > opts.maxBytes) tooLarge = true;
      if (!tooLarge) kept.push(asBuffer(chunk));
    }
  }
  return { body: tooLarge ? Buffer.alloc(0) : kept.length === 1 ? kept[0] : Buffer.concat(kept), size, tooLarge };
}

/** {@link readBody} of a fetch `Request` (a Next.js route handler's), with its Content-Length. */
export function readRequestBody(req: Request, opts: Omit<ReadBodyOptions, "declaredLength">): Promise<BodyRead> {
  return readBody(req.body, { ...opts, declaredLength: req.headers.get("content-length") });
}
