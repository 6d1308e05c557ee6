/**
 * Small display helpers of the console UI. Pure functions: safe on the server and in the browser.
 */

/** `1234` -> `1.2 KiB`: bytes in B, KiB or MiB. */
export function formatBytes(bytes: number | null | undefined): string {
  if (bytes == null || !Number.isFinite(bytes) || bytes < 0) return "—";
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${trimNumber(bytes / 1024)} KiB`;
  return `${trimNumber(bytes / (1024 * 1024))} MiB`;
}

function trimNumber(n: number): string {
  return n >= 100 ? Math.round(n).toString() : n.toFixed(1).replace(/\.0$/, "");
}

/** "just now", "12s ago", "5m ago", "3h ago", "2d ago", else a short date. */
export function formatRelative(iso: string | null | undefined, now: number): string {
  if (!iso) return "—";
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return "—";
  const s = Math.floor((now - t) / 1000);
  if (s < 5) return "just now";
  if (s < 60) return `${s}s ago`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ago`;
  const h = Math.floor(m / 60);
  if (h < 24) return `${h}h ago`;
  const d = Math.floor(h / 24);
  if (d < 30) return `${d}d ago`;
  return new Date(t).toLocaleDateString(undefined, { year: "numeric", month: "short", day: "numeric" });
}

const ABSOLUTE = typeof Intl !== "undefined"
  ? new Intl.DateTimeFormat(undefined, {
      year: "numeric",
      month: "short",
      day: "numeric",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
      fractionalSecondDigits: 3,
    })
  : null;

/** Local date and time with milliseconds (browser only: depends on the visitor's time zone). */
export function formatAbsolute(iso: string | null | undefined): string {
  if (!iso) return "—";
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return iso;
  return ABSOLUTE ? ABSOLUTE.format(t) : new Date(t).toISOString();
}

/** `UNSUPPORTED_HTTP_METHOD` -> "Unsupported HTTP method". */
export function humanizeCode(code: string): string {
  const known: Record<string, string> = {
    NO_CONNECTION: "No connection",
    UNSUPPORTED_HTTP_METHOD: "Unsupported method",
    PAYLOAD_TOO_LARGE: "Payload too large",
    VERIFICATION_FAILED: "Verification failed",
  };
  if (known[code]) return known[code];
  const words = code.toLowerCase().replace(/_+/g, " ").trim();
  return words ? words[0].toUpperCase() + words.slice(1) : code;
}

/** Informational rejection causes (the request was captured fine, there was just nowhere to send it). */
export function isNeutralRejection(code: string): boolean {
  return code === "NO_CONNECTION";
}

/** The last non-empty path segment of a URL or path (the public source id of an `inspect_url`). */
export function lastPathSegment(urlOrPath: string): string | null {
  let path = urlOrPath;
  try {
    path = new URL(urlOrPath, "http://x.invalid").pathname;
  } catch {
    /* keep as given */
  }
  const seg = path.split("/").filter(Boolean).pop();
  return seg ? decodeURIComponent(seg) : null;
}

/** True for a string that can be a public source id (the id without `src_`). */
export function isPublicId(id: string | null | undefined): id is string {
  return typeof id === "string" && /^[0-9A-Za-z_-]{1,64}$/.test(id);
}

/** The app path of a source's inspect page. */
export function inspectPath(publicId: string): string {
  return `/${encodeURIComponent(publicId)}`;
}

/** The path and query of a captured request as one string (`/a/b?x=1`). */
export function fullPath(path: string | undefined, query: string | undefined): string {
  const p = path || "/";
  return query ? `${p}?${query}` : p;
}
