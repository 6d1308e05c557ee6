/**
 * The one `Cookie` header parser of the app (docs/architecture.md "Cookies"): the console session, the
 * dashboard session (pages, the gateway and outbound APIs, next-auth's own endpoints) and the tenant
 * portal all read their cookie through it. Bad input is never an error: a pair that cannot be read is
 * no cookie, and a header past {@link MAX_COOKIE_HEADER_CHARS} has no cookies at all.
 *
 * Rules (RFC 6265 §5.4 order, browsers' leniency):
 * - pairs are split on `;`; a pair without `=` or with an empty name is skipped;
 * - a name must be an RFC 7230 token; the value may be wrapped in double quotes;
 * - the value is percent-decoded; malformed percent-encoding (`%`, `%E0%A4%A`) makes the pair no cookie;
 * - a name or decoded value holding a control character (NUL, CR, LF, …) makes the pair no cookie;
 * - the first occurrence of a name decides (browsers send the most specific path first): a later
 *   duplicate never overrides it, and a malformed first occurrence leaves the name without a cookie.
 */

/** A longer `Cookie` header is read as having no cookies (Node's own limit for all headers is 16 KiB). */
export const MAX_COOKIE_HEADER_CHARS = 32 * 1024;

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
// eslint-disable-next-line no-control-regex -- control characters are exactly what this pattern finds (they end a cookie value)
const CONTROL = /[\u0000-\u0008\u000a-\u001f\u007f]/;

function decodeValue(raw: string): string | null {
  const unquoted = raw.length >= 2 && raw.startsWith('"') && raw.endsWith('"') ? raw.slice(1, -1) : raw;
  let value: string;
  try {
    value = unquoted.includes("%") ? decodeURIComponent(unquoted) : unquoted;
  } catch {
    return null;
  }
  return CONTROL.test(value) ? null : value;
}

/**
 * Every cookie of a `Cookie` header, name → value, by the rules above. Never throws; an absent,
 * oversized or unreadable header gives an empty map.
 */
export function parseCookies(header: string | null | undefined): Map<string, string> {
  const cookies = new Map<string, string>();
  if (typeof header !== "string" || header.length > MAX_COOKIE_HEADER_CHARS) return cookies;
  const seen = new Set<string>();
  for (const pair of header.split(";")) {
    const eq = pair.indexOf("=");
    if (eq === -1) continue;
    const name = pair.slice(0, eq).trim();
    if (!name || !TOKEN.test(name) || seen.has(name)) continue;
    seen.add(name);
    const value = decodeValue(pair.slice(eq + 1).trim());
    if (value !== null) cookies.set(name, value);
  }
  return cookies;
}

/** The value of cookie `name` in a `Cookie` header ({@link parseCookies}), or undefined; an empty value counts as none. */
export function readCookie(header: string | null | undefined, name: string): string | undefined {
  return parseCookies(header).get(name) || undefined;
}
