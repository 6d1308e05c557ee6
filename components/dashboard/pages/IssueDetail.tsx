"use client";

import Link from "next/link";
import { type UseQueryResult, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type Execution, LevelBadge, RunOutput, runError } from "@/components/dashboard/DiagnoseExplorers";
import { linkTo } from "@/components/dashboard/RecordDetail";
import { RelativeTime } from "@/components/ui/Time";
import { api, type GatewayEvent, type Paged } from "@/components/dashboard/api";
import { plural, when } from "@/components/dashboard/forms";
import { type Issue, issueSummary, useNames } from "@/components/dashboard/pages/IssuesList";
import { Badge, StatusBadge } from "@/components/ui/Badge";
import { Button, ButtonLink } from "@/components/ui/Button";
import { Card } from "@/components/ui/Card";
import { EmptyState, ErrorMessage } from "@/components/ui/EmptyState";
import { EventsTable, QueryView } from "@/components/dashboard/pages/QueryView";
import { PageHeader } from "@/components/ui/PageHeader";

const ACTIONS = [
  { status: "ACKNOWLEDGED", label: "Acknowledge", hint: "You are on it; it stays acknowledged while failures continue." },
  { status: "IGNORED", label: "Ignore", hint: "Stop treating it as a problem." },
  { status: "RESOLVED", label: "Resolve", hint: "Fixed; it opens again if the failure comes back." },
] as const;

/** The bulk page set to retry the failed events of issue `id` (docs/dashboard.md "Issues"). */
export const retryIssueHref = (id: string) => `/dashboard/bulk?${new URLSearchParams({ family: "events.retry", issue_id: id, status: "FAILED" })}`;

/**
 * One issue: what failed, when, its status actions (`PUT /issues/{id}`) and what belongs to it: a delivery
 * issue's events (with "Retry failed events": the bulk page on the issue's failed events, after which the issue
 * resolves itself once they are all delivered), a transformation issue's failed runs with the latest one's
 * error and console (docs/dashboard.md "Issues").
 */
export function IssueDetail({ id }: { id: string }) {
  const client = useQueryClient();
  const issue = useQuery({ queryKey: ["issue", id], queryFn: () => api<Issue>(`issues/${id}`), refetchInterval: 15_000 });
  const trs = issue.data?.type === "transformation" ? issue.data.aggregation_keys.transformation_id?.[0] : undefined;
  const transformationId = typeof trs === "string" ? trs : "";
  const events = useQuery({
    queryKey: ["issue-events", id],
    queryFn: () => api<Paged<GatewayEvent>>(`events?issue_id=${encodeURIComponent(id)}&limit=100`),
    enabled: issue.data !== undefined && !transformationId,
    refetchInterval: 15_000,
  });
  const runs = useQuery({
    queryKey: ["issue-runs", id],
    queryFn: () => api<Paged<Execution>>(`transformations/${encodeURIComponent(transformationId)}/executions?issue_id=${encodeURIComponent(id)}&limit=20`),
    enabled: Boolean(transformationId),
    refetchInterval: 15_000,
  });
  const failed = events.data?.models.filter((e) => e.status === "FAILED").length ?? 0;
  const names = useNames();
  const update = useMutation({
    mutationFn: (status: string) => api<Issue>(`issues/${id}`, { method: "PUT", body: { status } }),
    onSuccess: (i) => {
      client.setQueryData(["issue", id], i);
      void client.invalidateQueries({ queryKey: ["issues"] });
    },
  });

  if (issue.error) return <ErrorMessage title="The issue could not be loaded" error={issue.error} onRetry={() => issue.refetch()} />;
  const i = issue.data;
  if (!i) return <div role="status" className="h-64 animate-pulse rounded-lg bg-zinc-100 dark:bg-zinc-800/60" aria-label="Loading" />;
  const nameOf = names.data ?? new Map<string, string>();

  return (
    <>
      <PageHeader
        title={issueSummary(i, nameOf)}
        description={
          <span className="inline-flex flex-wrap items-center gap-2">
            <Badge tone="accent">{i.type}</Badge>{" "}
            <span data-testid="issue-status">
              <StatusBadge status={i.status} />
            </span>{" "}
            <span className="font-mono text-xs">{i.id}</span>
          </span>
        }
        actions={
          <>
            <ButtonLink href="/dashboard/issues" variant="ghost">
              Back to issues
            </ButtonLink>
            {transformationId ? (
              <ButtonLink href={linkTo.runs(transformationId, { issue_id: i.id })} data-testid="issue-runs-link">
                See its runs
              </ButtonLink>
            ) : (
              <ButtonLink href={`/dashboard/events?issue_id=${encodeURIComponent(i.id)}`} data-testid="issue-events-link">
                See its events
              </ButtonLink>
            )}
            {failed > 0 && (
              <ButtonLink href={retryIssueHref(i.id)} variant="primary" data-testid="issue-retry">
                Retry failed events
              </ButtonLink>
            )}
          </>
        }
      />
      {update.error && (
        <div className="mb-4">
          <ErrorMessage title="The issue could not be changed" error={update.error} />
        </div>
      )}
      <div className="grid grid-cols-1 gap-4 lg:grid-cols-3">
        <Card title="Status" className="lg:col-span-1">
          <div className="grid gap-3">
            {ACTIONS.map((a) => (
              <div key={a.status} className="flex items-start gap-3">
                <Button
                  variant={a.status === "RESOLVED" ? "primary" : "secondary"}
                  size="sm"
                  className="w-28"
                  disabled={update.isPending || i.status === a.status}
                  onClick={() => update.mutate(a.status)}
                  data-testid={`issue-${a.label.toLowerCase()}`}
                >
                  {a.label}
                </Button>
                <p className="text-xs text-zinc-600 dark:text-zinc-400">{a.hint}</p>
              </div>
            ))}
            {i.status !== "OPENED" && (
              <Button size="sm" variant="ghost" className="w-28" disabled={update.isPending} onClick={() => update.mutate("OPENED")}>
                Reopen
              </Button>
            )}
          </div>
        </Card>
        <Card title="Details" className="lg:col-span-2">
          <dl className="grid grid-cols-1 gap-x-6 gap-y-2 text-sm sm:grid-cols-[max-content_1fr]">
            <dt className="text-zinc-600 dark:text-zinc-400">Opened</dt>
            <dd>{when(i.opened_at)}</dd>
            <dt className="text-zinc-600 dark:text-zinc-400">First seen</dt>
            <dd>{when(i.first_seen_at)}</dd>
            <dt className="text-zinc-600 dark:text-zinc-400">Last seen</dt>
            <dd>{when(i.last_seen_at)}</dd>
            {Object.entries(i.aggregation_keys).map(([k, v]) => (
              <div key={k} className="contents">
                <dt className="text-zinc-600 dark:text-zinc-400">{k}</dt>
                <dd className="font-mono text-xs break-all">
                  {v.map((x) => (nameOf.get(String(x)) ? `${nameOf.get(String(x))} (${String(x)})` : String(x))).join(", ") || "—"}
                </dd>
              </div>
            ))}
            {typeof i.reference.event_id === "string" && (
              <>
                <dt className="text-zinc-600 dark:text-zinc-400">First failure</dt>
                <dd>
                  <Link
                    className="font-mono text-xs text-indigo-700 hover:underline dark:text-indigo-300"
                    href={`/dashboard/events?id=${i.reference.event_id}`}
                  >
                    {i.reference.event_id}
                  </Link>
                </dd>
              </>
            )}
          </dl>
        </Card>
      </div>
      {failed > 0 && (
        <p className="mt-4 text-sm text-zinc-600 dark:text-zinc-400" data-testid="issue-retry-hint">
          Fixed the cause? Retry the {plural(failed, "failed event")}: once every retried delivery succeeds, this issue resolves itself.
        </p>
      )}
      {transformationId ? (
        <IssueRuns issueId={i.id} transformationId={transformationId} runs={runs} />
      ) : (
        <Card
          title="Events of this issue"
          className="mt-4"
          bodyClassName="p-0!"
          actions={events.data && <span className="text-xs text-zinc-600 dark:text-zinc-400">{plural(events.data.count, "event")}</span>}
        >
          <QueryView
            query={events}
            what="Events"
            inset
            isEmpty={(d) => d.models.length === 0}
            empty={<EmptyState title="No events">No event is linked to this issue any more (events are kept for the retention period).</EmptyState>}
          >
            {(d) => <EventsTable events={d.models} caption="Events of this issue" testId="issue-event" />}
          </QueryView>
        </Card>
      )}
    </>
  );
}

/** A transformation issue's failed runs: the latest one's error and console, then the recent ones, each opened in the runs explorer. */
function IssueRuns({ issueId, transformationId, runs }: { issueId: string; transformationId: string; runs: UseQueryResult<Paged<Execution>> }) {
  return (
    <Card title="Failed runs of this issue" className="mt-4" data-testid="issue-runs">
      <QueryView
        query={runs}
        what="Runs"
        isEmpty={(d) => d.models.length === 0}
        empty={<EmptyState title="No runs kept">The runs of this issue are older than the retention period.</EmptyState>}
      >
        {(d) => (
          <div className="flex flex-col gap-4">
            <p className="text-sm">
              Latest, <RelativeTime iso={d.models[0].created_at} />:
            </p>
            <RunOutput run={d.models[0]} />
            <ul className="flex flex-col gap-1.5" aria-label="Recent runs">
              {d.models.map((x) => (
                <li key={x.id} className="flex min-w-0 flex-wrap items-center gap-2 text-sm">
                  <LevelBadge level={x.log_level} />
                  <Link
                    className="font-mono text-xs text-indigo-700 hover:underline dark:text-indigo-300"
                    href={linkTo.runs(transformationId, { issue_id: issueId, id: x.id })}
                    data-testid="issue-run-link"
                  >
                    {x.id}
                  </Link>
                  <span className="min-w-0 truncate font-mono text-xs text-zinc-600 dark:text-zinc-400">{runError(x) ?? ""}</span>
                </li>
              ))}
            </ul>
          </div>
        )}
      </QueryView>
    </Card>
  );
}
