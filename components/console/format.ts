/**
 * Display helpers of the console (docs/console-api.md): rejection causes, public source ids and the
 * paths of inspect pages. Pure functions: safe on the server and in the browser.
 */

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

/** `value` as one POSIX shell word: unchanged when it is plain, else single-quoted. */
function shellWord(value: string): string {
  return /^[A-Za-z0-9._:/@%+=,-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
}

/**
 * The CLI hint (`cmd_hint`, with `[port]` and `<source-name>` placeholders: docs/console-api.md) with what the
 * page knows filled in: the test URL's `name` (shell-quoted when needed) and the local `port` the visitor chose.
 */
export function filledCmdHint(cmdHint: string, name: string, port: string): string {
  return cmdHint.replace("<source-name>", shellWord(name)).replace("[port]", shellWord(port || "3000"));
}
