/**
 * Display helpers of the UI kit (sizes, relative and absolute times), shared by the console, the
 * dashboard and the portal. Pure functions: safe on the server and in the browser.
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

const ZONED =
  typeof Intl !== "undefined"
    ? new Intl.DateTimeFormat(undefined, {
        year: "numeric",
        month: "short",
        day: "numeric",
        hour: "2-digit",
        minute: "2-digit",
        second: "2-digit",
        fractionalSecondDigits: 3,
        timeZoneName: "short",
      })
    : null;

/**
 * The one absolute form of a time in the UI (docs/dashboard.md "One kit"): local date and time with
 * milliseconds and the zone's short name ("Nov 26, 2026, 07:30:12.345 GMT+1"); browser only.
 */
export function formatZoned(iso: string | null | undefined): string {
  if (!iso) return "—";
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return iso;
  return ZONED ? ZONED.format(t) : new Date(t).toISOString();
}

/** A duration in milliseconds with its unit: `61` → "61 ms", `1500` → "1.5 s", `125000` → "2 min 5 s"; "—" for null. */
export function formatDuration(ms: number | null | undefined): string {
  if (ms == null || !Number.isFinite(ms) || ms < 0) return "—";
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${trimNumber(ms / 1000)} s`;
  const m = Math.floor(ms / 60_000);
  const s = Math.round((ms % 60_000) / 1000);
  if (m < 60) return s ? `${m} min ${s} s` : `${m} min`;
  const h = Math.floor(m / 60);
  return m % 60 ? `${h} h ${m % 60} min` : `${h} h`;
}
