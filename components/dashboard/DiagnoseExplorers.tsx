"use client";

/**
 * Why a request made no event (docs/dashboard.md "Ignored events and transformation runs"): the ignored-events
 * explorer and the transformation-runs explorer, both on the shared Explorer (filters and search in the URL,
 * j / k, the side panel), and the error-and-console block of a transformation run that the issue page shows too.
 */
import { useQuery } from "@tanstack/react-query";
import { usePathname, useSearchParams } from "next/navigation";
import { api, apiAll, type Paged } from "@/components/dashboard/api";
import { Explorer } from "@/components/dashboard/Explorer";
import { useNames } from "@/components/dashboard/filters";
import { NameOrId } from "@/components/dashboard/OtherExplorers";
import { BodyText } from "@/components/dashboard/Explorer";
import { CauseBadge, DetailSection, Fact, Facts, type IgnoredEvent, linkTo } from "@/components/dashboard/RecordDetail";
import { Age } from "@/components/dashboard/rows";
import { Badge, type Tone } from "@/components/ui/Badge";
import { ErrorMessage } from "@/components/ui/EmptyState";
import { Field, Select } from "@/components/ui/Field";
import { IdLink } from "@/components/ui/IdLink";
import { ZonedTime } from "@/components/ui/Time";
import type { ZTransformationExecution } from "@/lib/gateway/transformations/execution-store";
import type { z } from "zod";

export type Execution = z.infer<typeof ZTransformationExecution>;

/** What each cause means, in the words of the person reading it. */
const CAUSES: Record<IgnoredEvent["cause"], { why: string }> = {
  FILTERED: { why: "A filter rule of the connection did not match this request." },
  TRANSFORMATION_FAILED: { why: "The connection's transformation failed on this request, so no event was made." },
  DEDUPLICATED: { why: "A deduplicate rule of the connection had seen the same request within its window." },
  DISABLED: { why: "The connection was disabled when the request arrived." },
  CLI_DISCONNECTED: { why: "The connection delivers to the CLI and no `hookyard listen` was connected." },
};

/** The error a failed run ended with (its last `error` line when the level is `fatal`), or null. */
export function runError(x: Pick<Execution, "log_level" | "logs">): string | null {
  if (x.log_level !== "fatal") return null;
  return [...x.logs].reverse().find((l) => l.type === "error")?.message ?? "The transformation failed.";
}

const LEVEL_TONES: Record<Execution["log_level"], Tone> = { fatal: "danger", error: "danger", warn: "warning", info: "info", debug: "neutral" };

/** A run's log level as a badge. */
export const LevelBadge = ({ level }: { level: Execution["log_level"] }) => <Badge tone={LEVEL_TONES[level]}>{level}</Badge>;

/** A run's error (when it failed) and its console lines, in order; the error itself is not repeated among them (the sandbox and the fan-out may both log it). */
export function RunOutput({ run }: { run: Execution }) {
  const error = runError(run);
  const lines = run.logs.filter((l) => !(error && l.type === "error" && l.message === error));
  return (
    <div className="flex flex-col gap-4">
      {error && (
        <DetailSection title="Error" testId="run-error">
          <pre className="overflow-auto rounded-md bg-rose-50 p-3 font-mono text-xs whitespace-pre-wrap text-rose-900 [overflow-wrap:anywhere] dark:bg-rose-500/10 dark:text-rose-200">
            {error}
          </pre>
        </DetailSection>
      )}
      <DetailSection title="Console" testId="run-logs">
        {lines.length === 0 ? (
          <p className="text-sm text-zinc-600 dark:text-zinc-400">Nothing was logged.</p>
        ) : (
          <ol className="overflow-auto rounded-md bg-zinc-50 p-3 font-mono text-xs dark:bg-zinc-900">
            {lines.map((l, i) => (
              <li key={i} className="flex gap-2 whitespace-pre-wrap [overflow-wrap:anywhere]">
                <span className="w-12 shrink-0 text-zinc-600 dark:text-zinc-400">{l.type}</span>
                <span className="min-w-0 text-zinc-900 dark:text-zinc-100">{l.message}</span>
              </li>
            ))}
          </ol>
        )}
      </DetailSection>
    </div>
  );
}

/** /dashboard/ignored-events: requests a connection made no event of, with why, and "Retry all N matching". */
export function IgnoredEventsExplorer() {
  const names = useNames("connections");
  return (
    <Explorer<IgnoredEvent>
      kind="ignored-events"
      title="Ignored events"
      description="Requests a connection made no event of: filtered, deduplicated, a failed transformation, a disabled connection. Select one for why."
      path="ignored-events"
      bulk={{ family: "ignored-events.retry", path: "ignored-events/retry", verb: "Retry" }}
      empty="Nothing was ignored: every request your connections took made an event."
      columns={[
        { header: "Cause", cell: (i) => <CauseBadge cause={i.cause} />, width: "12rem" },
        { header: "Connection", cell: (i) => <NameOrId names={names} id={i.webhook_id} /> },
        { header: "Request", cell: (i) => <span className="font-mono text-xs">{i.request_id}</span>, width: "2fr", from: "md" },
        { header: "Age", cell: (i) => <Age iso={i.created_at} />, width: "5rem" },
      ]}
      detailTitle={(id) => (
        <>
          Ignored event <span className="font-mono font-normal">{id}</span>
        </>
      )}
      detail={(id) => <IgnoredEventDetail key={id} id={id} />}
    />
  );
}

/**
 * An ignored event: its cause in words, the request and connection, what a filter did not match, and for a
 * failed transformation the run's error and console (the run written with it: same connection, request and time).
 */
export function IgnoredEventDetail({ id }: { id: string }) {
  const q = useQuery({ queryKey: ["ignored-event", id], queryFn: () => api<IgnoredEvent>(`ignored-events/${id}`) });
  const names = useNames("connections");
  const i = q.data;
  const transformationId = i && i.meta && !Array.isArray(i.meta) ? i.meta.transformation_id : null;
  const run = useQuery({
    queryKey: ["run-of-ignored", id],
    enabled: Boolean(transformationId),
    queryFn: async () => {
      const at = i!.created_at;
      const page = await api<Paged<Execution>>(
        `transformations/${transformationId}/executions?${new URLSearchParams({ webhook_id: i!.webhook_id, "created_at[gte]": at, "created_at[lte]": at, limit: "50" })}`,
      );
      return page.models.find((x) => x.request_id === i!.request_id) ?? null;
    },
  });
  if (q.error) return <ErrorMessage title="This ignored event could not be loaded" error={q.error} />;
  if (!i) return <p className="text-sm text-zinc-600 dark:text-zinc-400">Loading…</p>;
  return (
    <div className="flex flex-col gap-5" data-testid="record-detail">
      <p className="text-sm" data-testid="ignored-why">
        {CAUSES[i.cause].why}
        {Array.isArray(i.meta) && i.meta.length > 0 && ` It failed on the request's ${i.meta.join(", ")}.`}
      </p>
      <Facts>
        <Fact label="Cause">
          <CauseBadge cause={i.cause} />
        </Fact>
        <Fact label="When">
          <ZonedTime iso={i.created_at} />
        </Fact>
        <Fact label="Request">
          <IdLink id={i.request_id} href={linkTo.request(i.request_id)} testId="ignored-request-link" />
        </Fact>
        <Fact label="Connection">
          <IdLink id={i.webhook_id} label={names.get(i.webhook_id)} href={linkTo.connection(i.webhook_id)} />
        </Fact>
        {transformationId && (
          <Fact label="Transformation">
            <IdLink id={transformationId} href={linkTo.runs(transformationId)} />
          </Fact>
        )}
      </Facts>
      {transformationId &&
        (run.error ? (
          <ErrorMessage title="The transformation's run could not be loaded" error={run.error} />
        ) : run.data === undefined ? (
          <p className="text-sm">Loading…</p>
        ) : run.data === null ? (
          <p className="text-sm text-zinc-600 dark:text-zinc-400">The transformation's run is no longer kept.</p>
        ) : (
          <>
            <RunOutput run={run.data} />
            <p className="text-sm">
              <a
                className="text-indigo-700 underline-offset-2 hover:underline dark:text-indigo-300"
                href={linkTo.runs(transformationId, { id: run.data.id })}
                data-testid="ignored-run-link"
              >
                Open this run with its input
              </a>
            </p>
          </>
        ))}
    </div>
  );
}

/**
 * /dashboard/executions?transformation_id=…: the runs of one transformation (a picker of the team's
 * transformations above the list), with their level, error and console, filtered by level, connection, date
 * and issue (`issue_id`, from an issue's page).
 */
export function ExecutionsExplorer() {
  const params = useSearchParams();
  const pathname = usePathname();
  const transformations = useQuery({
    queryKey: ["names", "transformations"],
    queryFn: () => apiAll<{ id: string; name: string }>("transformations"),
    staleTime: 60_000,
  });
  const names = useNames("connections");
  const chosen = params.get("transformation_id") ?? transformations.data?.models[0]?.id ?? null;
  const picker = (
    <Field label="Transformation" className="mb-3 max-w-sm">
      {(p) => (
        <Select
          {...p}
          value={chosen ?? ""}
          data-testid="runs-transformation"
          onChange={(e) => {
            // Another transformation: its own runs, from the first page, nothing selected.
            const sp = new URLSearchParams({ transformation_id: e.target.value });
            window.history.replaceState(null, "", `${pathname}?${sp}`);
          }}
        >
          {(transformations.data?.models ?? []).map((t) => (
            <option key={t.id} value={t.id}>
              {t.name}
            </option>
          ))}
          {chosen && !transformations.data?.models.some((t) => t.id === chosen) && <option value={chosen}>{chosen}</option>}
        </Select>
      )}
    </Field>
  );
  if (transformations.error)
    return <ErrorMessage title="Transformations could not be loaded" error={transformations.error} onRetry={() => transformations.refetch()} />;
  if (!chosen) {
    return transformations.data ? (
      <p className="text-sm text-zinc-600 dark:text-zinc-400" data-testid="empty-state">
        No transformation yet: add a transform rule to a connection, and each run shows here.
      </p>
    ) : (
      <div role="status" className="h-64 animate-pulse rounded-lg bg-zinc-100 dark:bg-zinc-800/60" aria-label="Loading" />
    );
  }
  return (
    <Explorer<Execution>
      key={chosen}
      kind="executions"
      title="Transformation runs"
      description="Every run of a transformation by a connection's rules: its error, console output, input and output."
      path={`transformations/${encodeURIComponent(chosen)}/executions`}
      toolbar={picker}
      empty="This transformation has not run yet. Send a request to a source whose connection uses it."
      columns={[
        { header: "Level", cell: (x) => <LevelBadge level={x.log_level} />, width: "6rem" },
        {
          header: "Error or first line",
          cell: (x) => (
            <span className="block truncate font-mono text-xs" title={runError(x) ?? x.logs[0]?.message}>
              {runError(x) ?? x.logs[0]?.message ?? "—"}
            </span>
          ),
          width: "3fr",
        },
        { header: "Connection", cell: (x) => (x.webhook_id ? <NameOrId names={names} id={x.webhook_id} /> : "—"), from: "lg" },
        { header: "Age", cell: (x) => <Age iso={x.created_at} />, width: "5rem" },
      ]}
      detailTitle={(id) => (
        <>
          Run <span className="font-mono font-normal">{id}</span>
        </>
      )}
      detail={(id) => <ExecutionDetail key={id} transformationId={chosen} id={id} />}
    />
  );
}

/** One transformation run: its error and console, where it came from and what it made, its input and output. */
export function ExecutionDetail({ transformationId, id }: { transformationId: string; id: string }) {
  const q = useQuery({
    queryKey: ["execution", transformationId, id],
    queryFn: () => api<Execution>(`transformations/${encodeURIComponent(transformationId)}/executions/${encodeURIComponent(id)}`),
  });
  const names = useNames("connections");
  const x = q.data;
  if (q.error) return <ErrorMessage title="This run could not be loaded" error={q.error} />;
  if (!x) return <p className="text-sm text-zinc-600 dark:text-zinc-400">Loading…</p>;
  return (
    <div className="flex flex-col gap-5" data-testid="record-detail">
      <RunOutput run={x} />
      <Facts>
        <Fact label="Level">
          <LevelBadge level={x.log_level} />
        </Fact>
        <Fact label="Ran">
          <ZonedTime iso={x.created_at} />
        </Fact>
        <Fact label="Request">{x.request_id ? <IdLink id={x.request_id} href={linkTo.request(x.request_id)} /> : "—"}</Fact>
        <Fact label="Event made">{x.event_id ? <IdLink id={x.event_id} href={linkTo.event(x.event_id)} /> : "none"}</Fact>
        <Fact label="Connection">
          {x.webhook_id ? <IdLink id={x.webhook_id} label={names.get(x.webhook_id)} href={linkTo.connection(x.webhook_id)} /> : "—"}
        </Fact>
        <Fact label="Issue">{x.issue_id ? <IdLink id={x.issue_id} href={`/dashboard/issues/${encodeURIComponent(x.issue_id)}`} /> : "none"}</Fact>
      </Facts>
      <DetailSection title="Input">
        <BodyText value={x.original_event_data} />
      </DetailSection>
      <DetailSection title="Output">
        {x.transformed_event_data ? (
          <BodyText value={x.transformed_event_data} />
        ) : (
          <p className="text-sm text-zinc-600 dark:text-zinc-400">None: the run failed.</p>
        )}
      </DetailSection>
    </div>
  );
}
