import { CopyButton } from "@/components/ui/CopyButton";
import { cx } from "@/components/ui/cx";
import { JsonText } from "@/components/ui/JsonText";

/** Whether `text` is a JSON document (so it gets the JSON colours). */
function isJson(text: string): boolean {
  const t = text.trimStart();
  if (!t.startsWith("{") && !t.startsWith("[")) return false;
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * The UI's one JSON viewer (docs/dashboard.md "One kit"), used by the console, the dashboard and the
 * portal: a body or any JSON value as text (a string exactly as it is, anything else pretty-printed),
 * JSON coloured, with the kit's copy button. Never interpreted as markup. `empty`: what an absent or empty
 * value says.
 */
export function JsonView({ value, testId, empty = "No body.", className }: { value: unknown; testId?: string; empty?: string; className?: string }) {
  const text = value === null || value === undefined ? "" : typeof value === "string" ? value : (JSON.stringify(value, null, 2) ?? "");
  if (!text) return <p className="text-sm text-zinc-600 dark:text-zinc-400">{empty}</p>;
  return (
    <div className={cx("relative", className)}>
      <pre
        data-testid={testId}
        className="max-h-96 overflow-auto rounded-md border border-zinc-200 bg-zinc-50 p-3 pr-12 font-mono text-xs whitespace-pre-wrap text-zinc-900 [overflow-wrap:anywhere] dark:border-zinc-800 dark:bg-zinc-900 dark:text-zinc-100"
      >
        {typeof value !== "string" || isJson(text) ? <JsonText text={text} /> : text}
      </pre>
      <div className="absolute top-1.5 right-4">
        <CopyButton value={text} title="Copy" data-testid="json-copy" />
      </div>
    </div>
  );
}
