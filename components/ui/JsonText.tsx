import { Fragment } from "react";

// Strings (a key when followed by a colon), literals and numbers of JSON.stringify output.
const TOKEN = /("(?:[^"\\]|\\.)*")(\s*:)?|\b(true|false|null)\b|(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)/g;
const MAX_HIGHLIGHT = 256 * 1024;

/**
 * Pretty JSON text with syntax colours. Every piece is a React text node, so the element's text is
 * exactly `text` and nothing in it is ever interpreted as markup.
 */
export function JsonText({ text }: { text: string }) {
  if (text.length > MAX_HIGHLIGHT) return <>{text}</>;
  const out: React.ReactNode[] = [];
  let last = 0;
  let i = 0;
  for (const m of text.matchAll(TOKEN)) {
    const at = m.index ?? 0;
    if (at > last) out.push(<Fragment key={i++}>{text.slice(last, at)}</Fragment>);
    if (m[1] !== undefined) {
      if (m[2] !== undefined) {
        out.push(
          <span key={i++} className="text-indigo-700 dark:text-indigo-300">
            {m[1]}
          </span>,
        );
        out.push(<Fragment key={i++}>{m[2]}</Fragment>);
      } else {
        out.push(
          <span key={i++} className="text-emerald-700 dark:text-emerald-300">
            {m[1]}
          </span>,
        );
      }
    } else if (m[3] !== undefined) {
      out.push(
        <span key={i++} className="text-rose-700 dark:text-rose-300">
          {m[3]}
        </span>,
      );
    } else {
      out.push(
        <span key={i++} className="text-amber-700 dark:text-amber-300">
          {m[0]}
        </span>,
      );
    }
    last = at + m[0].length;
  }
  if (last < text.length) out.push(<Fragment key={i++}>{text.slice(last)}</Fragment>);
  return <>{out}</>;
}
