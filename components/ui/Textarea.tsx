import { cx } from "@/components/ui/cx";

/** A multi-line text control in the kit's style; `code` sets a monospace font and keeps spaces (no spell check). */
export function Textarea({ className, code = false, ...rest }: React.TextareaHTMLAttributes<HTMLTextAreaElement> & { code?: boolean }) {
  return (
    <textarea
      spellCheck={code ? false : undefined}
      autoCapitalize={code ? "off" : undefined}
      autoCorrect={code ? "off" : undefined}
      className={cx(
        "block w-full rounded-md border-0 bg-white px-2.5 py-1.5 text-sm text-zinc-900 shadow-xs ring-1 ring-inset ring-zinc-300 placeholder:text-zinc-500 focus:ring-2 focus:ring-indigo-600 focus:outline-none disabled:opacity-60 dark:bg-zinc-900 dark:text-zinc-100 dark:ring-zinc-700 dark:placeholder:text-zinc-500 dark:focus:ring-indigo-400",
        code && "font-mono text-[13px] leading-5 [tab-size:2]",
        className,
      )}
      {...rest}
    />
  );
}

/** Captured or computed content shown as text, never markup: JSON pretty-printed, strings as they are. */
export function CodeBlock({ value, className, label, ...rest }: { value: unknown; label?: string } & React.HTMLAttributes<HTMLPreElement>) {
  const text = typeof value === "string" ? value : JSON.stringify(value, null, 2);
  return (
    <pre
      aria-label={label}
      tabIndex={0}
      className={cx(
        "max-h-96 overflow-auto rounded-md bg-zinc-50 p-3 font-mono text-xs leading-5 whitespace-pre-wrap break-all text-zinc-800 ring-1 ring-zinc-200 ring-inset dark:bg-zinc-950 dark:text-zinc-200 dark:ring-zinc-800",
        className,
      )}
      {...rest}
    >
      {text}
    </pre>
  );
}
