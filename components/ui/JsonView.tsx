"use client";

import { useMemo, useState } from "react";
import { CopyButton } from "@/components/ui/CopyButton";
import { cx } from "@/components/ui/cx";
import { DownloadButton, type DownloadSource } from "@/components/ui/DownloadButton";

/** A number kept as its source text, because a JS number would change it (big integers, `1.0`, `1e2`). */
class RawNumber {
  constructor(readonly source: string) {}
}

/** Pretty text shorter than this opens fully; a larger document opens its first level only. */
const OPEN_ALL_BELOW = 16 * 1024;
/** Children rendered per object or array before a "Show more" button. */
const PAGE = 200;

/**
 * `text` parsed as JSON (numbers that JavaScript would alter kept as their source text, where the browser
 * gives it to revivers), or `undefined` when it is not an object or array document.
 */
export function parseJsonDocument(text: string): unknown {
  const t = text.trimStart();
  if (!t.startsWith("{") && !t.startsWith("[")) return undefined;
  try {
    // The reviver's third argument (the source text of a primitive) is newer than TypeScript's lib types.
    const parse = JSON.parse as (t: string, reviver: (key: string, value: unknown, context?: { source?: string }) => unknown) => unknown;
    return parse(text, (_key, value, context) =>
      typeof value === "number" && context?.source !== undefined && String(value) !== context.source ? new RawNumber(context.source) : value,
    );
  } catch {
    return undefined;
  }
}

function isContainer(v: unknown): v is Record<string, unknown> | unknown[] {
  return typeof v === "object" && v !== null && !(v instanceof RawNumber);
}

/** Pretty JSON text of `v` as JSON.stringify(v, null, 2) writes it, RawNumbers as their source. */
function prettyText(v: unknown): string {
  return JSON.stringify(v, (_k, x: unknown) => (x instanceof RawNumber ? `\u0000${x.source}\u0000` : x), 2).replace(/"\\u0000(.*?)\\u0000"/g, "$1");
}

const indent = (depth: number) => "  ".repeat(depth);

function Scalar({ v }: { v: unknown }) {
  if (v instanceof RawNumber) return <span className="text-amber-700 dark:text-amber-300">{v.source}</span>;
  if (typeof v === "string") return <span className="text-emerald-700 dark:text-emerald-300">{JSON.stringify(v)}</span>;
  if (typeof v === "number") return <span className="text-amber-700 dark:text-amber-300">{String(v)}</span>;
  if (v === undefined) return <span className="text-rose-700 dark:text-rose-300">null</span>;
  return <span className="text-rose-700 dark:text-rose-300">{JSON.stringify(v)}</span>;
}

function Value({ v, depth, openAll, label }: { v: unknown; depth: number; openAll: boolean; label: string }) {
  return isContainer(v) ? <JsonNode v={v} depth={depth} openAll={openAll} label={label} /> : <Scalar v={v} />;
}

/**
 * One object or array: a toggle (a real button: click, Enter or Space) before its bracket, its children
 * rendered only while it is open, at most PAGE of them until asked for more. Open, its text is exactly
 * what JSON.stringify(…, null, 2) writes; the toggle has no text of its own (its glyph is CSS).
 */
function JsonNode({ v, depth, openAll, label }: { v: Record<string, unknown> | unknown[]; depth: number; openAll: boolean; label: string }) {
  const array = Array.isArray(v);
  const entries: [string, unknown][] = array ? v.map((x, i) => [String(i), x]) : Object.entries(v);
  const [open, setOpen] = useState(openAll || depth === 0);
  const [shown, setShown] = useState(PAGE);
  const [o, c] = array ? ["[", "]"] : ["{", "}"];
  if (entries.length === 0) return <>{o + c}</>;
  const count = `${entries.length} ${array ? (entries.length === 1 ? "item" : "items") : entries.length === 1 ? "key" : "keys"}`;
  return (
    <>
      <button
        type="button"
        aria-expanded={open}
        aria-label={`${open ? "Collapse" : "Expand"} ${label} (${count})`}
        data-testid="json-toggle"
        onClick={() => setOpen(!open)}
        className={cx(
          "inline-block w-3.5 cursor-pointer rounded-sm text-center align-baseline text-zinc-600 hover:text-zinc-900 focus-visible:outline-2 focus-visible:outline-[var(--hy-focus)] dark:text-zinc-400 dark:hover:text-zinc-100",
          open ? "before:content-['▾']" : "before:content-['▸']",
        )}
      />
      {o}
      {open ? (
        <>
          {entries.slice(0, shown).map(([k, x], i) => (
            <span key={k}>
              {"\n" + indent(depth + 1)}
              {!array && (
                <>
                  <span className="text-indigo-700 dark:text-indigo-300">{JSON.stringify(k)}</span>
                  {": "}
                </>
              )}
              <Value v={x} depth={depth + 1} openAll={openAll} label={array ? `${label}[${k}]` : `${label}.${k}`} />
              {i < entries.length - 1 ? "," : ""}
            </span>
          ))}
          {entries.length > shown && (
            <>
              {"\n" + indent(depth + 1)}
              <button
                type="button"
                onClick={() => setShown(shown + PAGE * 5)}
                data-testid="json-more"
                className="rounded-sm text-indigo-700 underline underline-offset-2 focus-visible:outline-2 focus-visible:outline-[var(--hy-focus)] dark:text-indigo-300"
              >
                {`Show ${Math.min(PAGE * 5, entries.length - shown)} more of ${entries.length - shown} hidden`}
              </button>
            </>
          )}
          {"\n" + indent(depth) + c}
        </>
      ) : (
        <>
          <span data-testid="json-folded" className="text-zinc-600 dark:text-zinc-400">{` … ${count} `}</span>
          {c}
        </>
      )}
    </>
  );
}

/**
 * A JSON document as a folding tree (docs/dashboard.md "Bodies"): pretty-printed, every object and array
 * foldable, a small document open fully and a large one (pretty text over 16 KiB) open at its first level,
 * only open nodes rendered. All text nodes: nothing is ever interpreted as markup.
 */
export function JsonTree({ doc, size }: { doc: unknown; size?: number }) {
  const openAll = (size ?? prettyText(doc).length) < OPEN_ALL_BELOW;
  return <Value v={doc} depth={0} openAll={openAll} label="root" />;
}

/**
 * The UI's one JSON viewer (docs/dashboard.md "One kit"), used by the console, the dashboard and the
 * portal: a body or any JSON value as text (a string exactly as it is unless it is a JSON document,
 * anything else pretty-printed), a JSON document as a folding tree, with the kit's Copy and Download
 * buttons (`download`: where Download takes the bytes from, default the text shown; `fileName`: the
 * saved name). Never interpreted as markup. `empty`: what an absent or empty value says. `notice`: shown
 * above the body (a cut preview's notice).
 */
export function JsonView({
  value,
  testId,
  empty = "No body.",
  className,
  download,
  fileName,
  notice,
}: {
  value: unknown;
  testId?: string;
  empty?: string;
  className?: string;
  download?: DownloadSource;
  fileName?: string;
  notice?: React.ReactNode;
}) {
  const { text, doc } = useMemo(() => {
    if (value === null || value === undefined) return { text: "", doc: undefined };
    if (typeof value === "string") return { text: value, doc: parseJsonDocument(value) };
    return { text: JSON.stringify(value, null, 2) ?? "", doc: isContainer(value) ? value : undefined };
  }, [value]);
  if (!text) return <p className="text-sm text-zinc-600 dark:text-zinc-400">{empty}</p>;
  const json = doc !== undefined;
  return (
    <div className={cx("space-y-1.5", className)}>
      {notice}
      <div className="flex flex-wrap items-center justify-end gap-1.5">
        <CopyButton value={text} label="Copy" data-testid="json-copy" />
        <DownloadButton source={download ?? { text, type: json ? "application/json" : "text/plain" }} name={fileName ?? (json ? "body.json" : "body.txt")} />
      </div>
      <pre
        data-testid={testId}
        data-json={json ? "tree" : "text"}
        tabIndex={0} // a scrollable region the keyboard can scroll (axe scrollable-region-focusable)
        className="max-h-96 overflow-auto rounded-md border border-zinc-200 bg-zinc-50 p-3 font-mono text-xs whitespace-pre-wrap text-zinc-900 [overflow-wrap:anywhere] dark:border-zinc-800 dark:bg-zinc-900 dark:text-zinc-100"
      >
        {/* Keyed by the document, so another body opens with its own folds. */}
        {json ? <JsonTree key={`${text.length}:${text.slice(0, 64)}`} doc={doc} size={text.length} /> : text}
      </pre>
    </div>
  );
}
