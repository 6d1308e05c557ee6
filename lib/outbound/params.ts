/**
 * Query parameters and keyset cursors of the outbound lists (docs/outbound.md#events-attempts-metrics-health):
 * one value, a list (`x=a&x=b`, `x[]=a`, `x[0]=a`), and the opaque cursor of a `(time, id)`
 * position. Each throws the outbound 400.
 */
import { outboundBadRequest } from "@/lib/outbound/errors";
import { cursorDate, cursorText, decodeCursor as decodeRaw, encodeCursor as encodeRaw } from "@/lib/http/cursor";
import type { ParsedQuery } from "@/lib/http/query";

/** Parameter `name` as one value, or undefined. Throws 400 for a list or an object. */
export function single(q: ParsedQuery, name: string): string | undefined {
  const v = q[name];
  if (v !== undefined && typeof v !== "string") throw outboundBadRequest(`${name} must be one value`);
  return v;
}

/** Parameter `name` as a list of values, or undefined. Throws 400 when an entry is not a plain value. */
export function values(q: ParsedQuery, name: string): string[] | undefined {
  const v = q[name];
  if (v === undefined) return undefined;
  const list = typeof v === "string" ? [v] : Array.isArray(v) ? v : Object.values(v);
  if (list.some((x) => typeof x !== "string")) throw outboundBadRequest(`${name} must be a list of values`);
  return list as string[];
}

/** A decoded keyset position: the row's time and id, both values PostgreSQL takes. */
type CursorPosition = { time: Date; id: string };

/** The cursor of the row at `time` with `id` (lib/http/cursor.ts: base64url JSON `{t, i}`). */
export const encodeCursor = (time: Date, id: string): string => encodeRaw({ t: time.toISOString(), i: id });

/**
 * The position of cursor `raw`. Throws 400 `invalid cursor` for anything that is not one, including a
 * forged one whose id holds U+0000 or an unpaired surrogate, or whose time is outside years 1–9999
 * (lib/http/cursor.ts cursorText, cursorDate): such values never reach PostgreSQL.
 */
export function decodeCursor(raw: string): CursorPosition {
  const c = decodeRaw(raw);
  const time = c ? cursorDate(c.t) : null;
  if (time && cursorText(c!.i)) return { time, id: c!.i };
  throw outboundBadRequest("invalid cursor");
}
