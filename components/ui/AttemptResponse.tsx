import { JsonView } from "@/components/ui/JsonView";

/** What a delivery attempt's `response_data` holds (docs/outbound.md "Attempts"); null or absent: no response came. */
export type AttemptResponseData = { status_code?: number; body?: string; headers?: Record<string, string> } | null | undefined;

/** A detail panel's small section heading (an attempt's Response, its Payload, …). */
export function DetailHeading({ children }: { children: React.ReactNode }) {
  return <h3 className="mb-1.5 text-xs font-semibold uppercase tracking-wide text-zinc-600 dark:text-zinc-400">{children}</h3>;
}

const pre =
  "max-h-72 overflow-auto whitespace-pre-wrap break-all rounded-md border border-zinc-200 bg-white p-3 font-mono text-xs text-zinc-900 dark:border-zinc-800 dark:bg-zinc-900 dark:text-zinc-100";

/**
 * The Response section of an opened attempt, for the dashboard's tenant attempts and the portal's activity:
 * the status code (and `latencyMs`, when given), the headers as `name: value` lines, the body in the kit's
 * JSON viewer (always as text, never as markup); without a response, "No response was received" with the
 * attempt's error `code`. `testIds` name the status and body elements (`response-status`, `response-body`).
 */
export function AttemptResponse({
  response: r,
  code,
  latencyMs,
  className,
  testIds = { status: "response-status", body: "response-body" },
}: {
  response: AttemptResponseData;
  code: string | null | undefined;
  latencyMs?: number;
  className?: string;
  testIds?: { status: string; body: string };
}) {
  return (
    <div className={className}>
      <DetailHeading>Response</DetailHeading>
      {r ? (
        <div className="space-y-2">
          <p className="text-sm">
            Status{" "}
            <span className="font-mono font-semibold" data-testid={testIds.status}>
              {r.status_code ?? "—"}
            </span>
            {latencyMs !== undefined && <span className="text-zinc-600 dark:text-zinc-400"> · {latencyMs} ms</span>}
          </p>
          {r.headers && Object.keys(r.headers).length > 0 && (
            <pre className={pre}>
              {Object.entries(r.headers)
                .map(([k, v]) => `${k}: ${v}`)
                .join("\n")}
            </pre>
          )}
          <JsonView value={r.body} testId={testIds.body} empty="(empty body)" />
        </div>
      ) : (
        <p className="text-sm text-zinc-700 dark:text-zinc-300">No response was received{code ? ` (${code})` : ""}.</p>
      )}
    </div>
  );
}
