/**
 * Query parameters and keyset cursors of the outbound lists (shared/spec/outbound.md "Paged list
 * envelope"): one value, a list (`x=a&x=b`, `x[]=a`, `x[0]=a`), and the opaque cursor of a `(time, id)`
 * position. Each throws the outbound 400.
 */
import { OutboundError } from "@/lib/http/outbound";
import type { ParsedQuery } from "@/lib/http/query";

/** Parameter `name` as one value, or undefined. Throws 400 for a list or an object. */
export function single(q: ParsedQuery, name: string): string | undefined {
  const v = q[name];
  if (v !== undefined && typeof v !== "string") throw new OutboundError(400, `${name} must be one value`);
  return v;
}

/** Parameter `name` as a list of values, or undefined. Throws 400 when an entry is not a plain value. */
export function values(q: ParsedQuery, name: string): string[] | undefined {
  const v = q[name];
  if (v === undefined) return undefined;
  const list = typeof v === "string" ? [v] : Array.isArray(v) ? v : Object.values(v);
  if (list.some((x) => typeof x !== "string")) throw new OutboundError(400, `${name} must be a list of values`);
  return list as string[];
}

/** A keyset position: the row's time (ISO) and id. */
export type Cursor = { t: string; i: string };

export const encodeCursor = (c: Cursor) => Buffer.from(JSON.stringify(c)).toString("base64url");

/** The position of cursor `raw`. Throws 400 `invalid cursor` for anything that is not one. */
export function decodeCursor(raw: string): Cursor {
  try {
    const c = JSON.parse(Buffer.from(raw, "base64url").toString("utf8")) as Cursor;
    if (typeof c.t === "string" && typeof c.i === "string" && c.i.length <= 1024 && Number.isFinite(Date.parse(c.t))) return c;
  } catch {
    /* below */
  }
  throw new OutboundError(400, "invalid cursor");
}
