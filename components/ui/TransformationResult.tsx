"use client";
/**
 * What one transformation run gave, shown the same way by the dashboard's transformation editor and the
 * portal's destination transformation: the error of a failed run, the output request (pretty JSON, as
 * text) and the console lines, each with its level.
 */
import { CodeBlock } from "@/components/ui/Textarea";

/** A run's answer: the gateway's `PUT /transformations/run` and the outbound test run share these fields. */
export type TransformationRun = {
  log_level: string;
  request?: unknown;
  console: { type: string; message: string }[];
  /** Why the code failed (outbound); without it, the last console line says. */
  error?: string;
};

export function TransformationResult({ output }: { output: TransformationRun }) {
  const failed = output.log_level === "fatal";
  return (
    <div className="grid gap-3">
      {failed && (
        <div
          role="alert"
          className="rounded-md bg-rose-50 px-3 py-2 text-sm whitespace-pre-wrap text-rose-900 dark:bg-rose-500/10 dark:text-rose-200"
          data-testid="run-error"
        >
          {output.error ?? output.console.at(-1)?.message ?? "The transformation failed"}
        </div>
      )}
      {output.request !== undefined && (
        <div>
          <h3 className="mb-1 text-xs font-medium text-zinc-700 dark:text-zinc-300">Output request</h3>
          <CodeBlock value={output.request} label="Output request" data-testid="run-output" />
        </div>
      )}
      <div>
        <h3 className="mb-1 text-xs font-medium text-zinc-700 dark:text-zinc-300">Console</h3>
        {output.console.length === 0 ? (
          <p className="text-sm text-zinc-600 dark:text-zinc-400">Nothing logged.</p>
        ) : (
          <ol
            className="divide-y divide-zinc-100 rounded-md font-mono text-xs ring-1 ring-zinc-200 dark:divide-zinc-800 dark:ring-zinc-800"
            data-testid="run-console"
          >
            {output.console.map((l, i) => (
              <li key={i} className="flex gap-2 px-2 py-1">
                <span
                  className={
                    l.type === "error"
                      ? "text-rose-700 dark:text-rose-300"
                      : l.type === "warn"
                        ? "text-amber-700 dark:text-amber-300"
                        : "text-zinc-600 dark:text-zinc-400"
                  }
                >
                  {l.type}
                </span>
                <span className="break-all whitespace-pre-wrap">{l.message}</span>
              </li>
            ))}
          </ol>
        )}
      </div>
    </div>
  );
}
