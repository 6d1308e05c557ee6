/**
 * The one keyset-cursor codec of every list (the gateway's, lib/http/paging.ts; the outbound service's,
 * lib/outbound/params.ts; docs/gateway-api.md and docs/outbound.md describe their paging). A cursor is opaque to clients: base64url of the JSON of a flat object of strings, whose
 * keys (and their order) each surface chooses; that text is the wire format, so cursors handed out
 * before stay valid. Decoding never throws: each surface turns a null into its own 400.
 */
import { hasUnstorableText } from "@/lib/http/json-input";

/** The cursor of `fields`: base64url of `JSON.stringify(fields)` (key order as given). */
export const encodeCursor = (fields: Record<string, string>): string => Buffer.from(JSON.stringify(fields)).toString("base64url");

/**
 * The object cursor `raw` encodes, or null when it is not base64url of a JSON object (its fields are
 * not checked: callers do, with {@link cursorText} and {@link cursorDate}).
 */
export function decodeCursor(raw: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(Buffer.from(raw, "base64url").toString("utf8"));
    return value !== null && typeof value === "object" ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** Longest sort value or id a cursor may carry (characters); real ones are far shorter. */
const CURSOR_MAX_FIELD = 1024;

/**
 * True when `s`, a field of a decoded cursor (a sort value or an id), is text PostgreSQL can compare: a
 * string of at most 1,024 characters without U+0000 or unpaired surrogates. Every surface checks its
 * cursor's fields with it, so a forged cursor is a 400, never a 500.
 */
export const cursorText = (s: unknown): s is string => typeof s === "string" && s.length <= CURSOR_MAX_FIELD && !hasUnstorableText(s);

/**
 * The instant of a decoded cursor's time field, or null when it is not one PostgreSQL takes: not a
 * string, not a date, or outside years 1–9999 (JavaScript dates reach ±275,760 years; node-pg writes
 * them so that PostgreSQL refuses them). Callers answer null with their surface's 400 "invalid cursor".
 */
export function cursorDate(value: unknown): Date | null {
  if (typeof value !== "string" || !cursorText(value)) return null;
  const date = new Date(value);
  const year = date.getUTCFullYear();
  return Number.isFinite(date.getTime()) && year >= 1 && year <= 9999 ? date : null;
}
