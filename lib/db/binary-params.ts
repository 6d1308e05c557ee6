/**
 * Query parameters in PostgreSQL's binary wire format (docs/architecture.md "The hot path", docs/benchmarks.md
 * "Bodies as binary"). `pg` sends a Buffer parameter as binary, but an array of Buffers as a text array literal
 * whose elements are hex escapes (`"\\x7b22…"`): twice the bytes, built as one large JS string and parsed back by
 * the server. An array built here is one Buffer, so it travels as binary and the server reads it with
 * `array_recv` (no hex encoding, no parsing).
 */

/** PostgreSQL's type oid of `bytea`. */
const BYTEA_OID = 17;

/**
 * The binary form of a one-dimensional `bytea[]` (lower bound 1) holding `items` in order; a null item is an SQL
 * NULL element. Pass it as the value of a parameter cast to `bytea[]` (`$1::bytea[]`): the server then reads it
 * as binary. An empty `items` gives the empty array. Copies each item once; throws nothing.
 */
export function byteaArrayParam(items: readonly (Buffer | null | undefined)[]): Buffer {
  let size = 20;
  for (const item of items) size += 4 + (item ? item.length : 0);
  if (items.length === 0) size = 12;
  const out = Buffer.allocUnsafe(size);
  out.writeInt32BE(items.length === 0 ? 0 : 1, 0); // dimensions
  out.writeInt32BE(items.some((i) => !i) ? 1 : 0, 4); // has nulls
  out.writeInt32BE(BYTEA_OID, 8); // element type
  if (items.length === 0) return out;
  out.writeInt32BE(items.length, 12); // length of the dimension
  out.writeInt32BE(1, 16); // its lower bound
  let at = 20;
  for (const item of items) {
    if (!item) {
      out.writeInt32BE(-1, at);
      at += 4;
      continue;
    }
    out.writeInt32BE(item.length, at);
    item.copy(out, at + 4);
    at += 4 + item.length;
  }
  return out;
}
