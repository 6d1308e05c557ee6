"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useEffect, useMemo, useRef, useState } from "react";
import { RelativeTime } from "@/components/ui/Time";
import { api, apiAll, qs, type BulkOperation, type Connection, type Paged } from "@/components/dashboard/api";
import {
  describeQuery,
  type Filter,
  FilterControls,
  filterFromParams,
  filterToBulkQuery,
  filterToParams,
  type RecordKind,
  useNamed,
  useNames,
} from "@/components/dashboard/filters";
import { Badge } from "@/components/ui/Badge";
import { Button, ButtonLink } from "@/components/ui/Button";
import { Card } from "@/components/ui/Card";
import { Checkbox, Field, Select } from "@/components/ui/Field";
import { EmptyState, ErrorMessage } from "@/components/ui/EmptyState";
import { cx } from "@/components/ui/cx";
import { PageHeader } from "@/components/ui/PageHeader";
import { ProgressBar } from "@/components/ui/ProgressBar";
import { ArchiveOffNotice, isArchiveOff } from "@/components/outbound/RedrivePanel";
import { Table, Td, Th, Tr } from "@/components/ui/Table";

type Family = { id: string; path: string; kind: RecordKind; label: string; verb: string; noun: string; effect: string };
/** The bulk families of the gateway API (docs/gateway-api.md "Bulk operations"). */
export const FAMILIES: Family[] = [
  {
    id: "events.retry",
    path: "events/retry",
    kind: "events",
    label: "Retry events",
    verb: "Retry",
    noun: "events",
    effect: "Each event gets a new delivery now, through its connection's current destination and rules.",
  },
  {
    id: "events.cancel",
    path: "events/cancel",
    kind: "events",
    label: "Cancel events",
    verb: "Cancel",
    noun: "events",
    effect: "Each scheduled, queued or held event becomes CANCELLED; delivered events keep their history.",
  },
  {
    id: "requests.retry",
    path: "requests/retry",
    kind: "requests",
    label: "Retry requests",
    verb: "Retry",
    noun: "requests",
    effect: "Each request runs through its source's current connections again.",
  },
  {
    id: "requests.replay",
    path: "requests/replay",
    kind: "requests",
    label: "Replay requests",
    verb: "Replay",
    noun: "requests",
    effect:
      "Each request goes through the full pipeline (rules, transformations, deduplication) of the target connections, even ones created after it arrived.",
  },
  {
    id: "archived-requests.replay",
    path: "archived-requests/replay",
    kind: "archived-requests",
    label: "Replay from archive",
    verb: "Replay",
    noun: "archived requests",
    effect:
      "Each request of the archived days (kept after retention dropped them) is ingested again as a new request of the target source, through its connections.",
  },
  {
    id: "ignored-events.retry",
    path: "ignored-events/retry",
    kind: "ignored-events",
    label: "Retry ignored events",
    verb: "Retry",
    noun: "ignored events",
    effect: "Each ignored request runs through its connection again with today's rules.",
  },
];

const POLL_MS = 1_000;
/** Families that send records into a chosen target (`query.target`). */
const isReplay = (familyId: string) => familyId.endsWith(".replay");
const ARCHIVE = "archived-requests.replay";
/** A range the archive family is planned over while none is chosen: only to learn whether the server keeps an archive. */
const PROBE = { created_at: { gte: "2000-01-01T00:00:00.000Z", lte: "2000-01-01T23:59:59.999Z" } };

/** A replay's target as kept in the page address: `target_source` and `target_webhooks` (comma-separated). */
type Target = { source_id?: string; webhook_ids: string[] };
function targetFromParams(params: URLSearchParams): Target {
  return { source_id: params.get("target_source") || undefined, webhook_ids: (params.get("target_webhooks") ?? "").split(",").filter(Boolean) };
}

/** What a run's state is, in words and tone. */
function stateOf(op: BulkOperation): { label: string; tone: "accent" | "success" | "neutral" | "danger" } {
  if (op.cancelled_at && !op.completed_at) return { label: "Cancelled", tone: "neutral" };
  if (op.in_progress) return { label: "In progress", tone: "accent" };
  if (op.completed_at) return { label: op.failed_count ? "Completed with failures" : "Completed", tone: op.failed_count ? "danger" : "success" };
  return { label: "Stopped", tone: "neutral" };
}

/**
 * /dashboard/bulk (docs/dashboard.md#bulk-operations): pick a family, build the filter with the explorers' controls
 * (or arrive with an explorer's filter), see the plan's estimate, confirm, watch the progress bar move
 * live (polling the operation every second) to completion, cancel, and browse past operations.
 */
export function BulkOperations() {
  const params = useSearchParams();
  const router = useRouter();
  const pathname = usePathname();
  const client = useQueryClient();
  const family = FAMILIES.find((f) => f.id === params.get("family")) ?? FAMILIES[0];
  const filter = useMemo(() => filterFromParams(new URLSearchParams(params.toString()), family.kind), [params, family.kind]);
  const opId = params.get("op");
  const replay = isReplay(family.id);
  const archive = family.id === ARCHIVE;
  const target = useMemo(() => targetFromParams(new URLSearchParams(params.toString())), [params]);
  const query = useMemo(() => filterToBulkQuery(filter), [filter]);
  // The plan ignores a replay's target (docs/gateway-api.md "Bulk operations"); only the create carries it.
  const createQuery = replay
    ? { ...query, target: { source_id: target.source_id, ...(target.webhook_ids.length ? { webhook_ids: target.webhook_ids } : {}) } }
    : query;
  // The archive replay needs both ends of its range: until then its plan only probes for an archive.
  const ranged = !archive || (filter.created_after && filter.created_before);
  const queryJson = JSON.stringify(ranged ? query : PROBE);
  const [confirming, setConfirming] = useState(false);
  const confirmRef = useRef<HTMLDivElement>(null);

  function navigate(next: { family?: string; filter?: Filter; op?: string | null; target?: Target }) {
    const sp = filterToParams(next.filter ?? filter);
    sp.set("family", next.family ?? family.id);
    const t = next.target ?? target;
    if (isReplay(next.family ?? family.id) && t.source_id) {
      sp.set("target_source", t.source_id);
      if (t.webhook_ids.length) sp.set("target_webhooks", t.webhook_ids.join(","));
    }
    const op = next.op === undefined ? opId : next.op;
    if (op) sp.set("op", op);
    setConfirming(false);
    router.replace(`${pathname}?${sp}`, { scroll: false });
  }

  const plan = useQuery({
    queryKey: ["plan", family.path, queryJson],
    queryFn: () => api<{ estimated_count: number; estimated_batch: number }>(`bulk/${family.path}/plan${qs({ query: queryJson })}`),
  });
  const create = useMutation({
    mutationFn: () => api<BulkOperation>(`bulk/${family.path}`, { method: "POST", body: { query: createQuery } }),
    onSuccess: (op) => {
      navigate({ op: op.id });
      void client.invalidateQueries({ queryKey: ["bulk-history"] });
    },
  });
  const op = useQuery({
    queryKey: ["bulk", family.path, opId],
    queryFn: () => api<BulkOperation>(`bulk/${family.path}/${opId}`),
    enabled: Boolean(opId),
    refetchInterval: (q) => (q.state.data && !q.state.data.in_progress ? false : POLL_MS),
  });
  const cancel = useMutation({
    mutationFn: () => api<BulkOperation>(`bulk/${family.path}/${opId}/cancel`, { method: "POST" }),
    onSuccess: (data) => {
      client.setQueryData(["bulk", family.path, opId], data);
      void client.invalidateQueries({ queryKey: ["bulk-history"] });
    },
  });
  const history = useQuery({
    queryKey: ["bulk-history", family.path],
    queryFn: () => api<Paged<BulkOperation>>(`bulk/${family.path}?limit=20`),
    refetchInterval: op.data?.in_progress ? 2_000 : 15_000,
  });
  useEffect(() => {
    if (confirming) confirmRef.current?.focus();
  }, [confirming]);
  const finished = op.data && !op.data.in_progress;
  useEffect(() => {
    if (!finished) return;
    void client.invalidateQueries({ queryKey: ["bulk-history"] });
    void client.invalidateQueries({ queryKey: ["plan"] });
  }, [finished, client]);

  const count = ranged ? (plan.data?.estimated_count ?? 0) : 0;
  const archiveOff = archive && isArchiveOff(plan.error);
  const names = useNames("sources", "connections", "destinations");

  return (
    <>
      <PageHeader
        title="Bulk operations"
        description="Retry or cancel many records at once: choose what, narrow it down, check the count, then watch it run."
      />
      <div className="grid grid-cols-1 gap-4">
        <Card title="1. What to do">
          <fieldset>
            <legend className="sr-only">Operation</legend>
            <div className="grid grid-cols-1 gap-2 sm:grid-cols-2 lg:grid-cols-3">
              {FAMILIES.map((f) => (
                <label
                  key={f.id}
                  className={cx(
                    "flex cursor-pointer flex-col gap-1 rounded-md border px-3 py-2 text-sm focus-within:outline-2 focus-within:outline-indigo-600",
                    f.id === family.id
                      ? "border-indigo-500 bg-indigo-50 dark:border-indigo-400 dark:bg-indigo-500/10"
                      : "border-zinc-200 hover:border-zinc-300 dark:border-zinc-800 dark:hover:border-zinc-700",
                  )}
                >
                  <span className="flex items-center gap-2 font-medium">
                    <input
                      type="radio"
                      name="family"
                      value={f.id}
                      checked={f.id === family.id}
                      onChange={() => navigate({ family: f.id, filter: filterFromParams(filterToParams(filter), f.kind), op: null })}
                      className="accent-indigo-600"
                      data-testid={`family-${f.id}`}
                    />
                    {f.label}
                  </span>
                  <span className="text-xs text-zinc-600 dark:text-zinc-400">{f.effect}</span>
                </label>
              ))}
            </div>
          </fieldset>
        </Card>
        <Card title={`2. Which ${family.noun}`}>
          <FilterControls kind={family.kind} value={filter} onChange={(f) => navigate({ filter: f })} />
          {replay && <ReplayTargetPicker value={target} onChange={(t) => navigate({ target: t })} />}
          <div className="mt-4 flex flex-col gap-3 border-t border-zinc-200 pt-4 sm:flex-row sm:items-center sm:justify-between dark:border-zinc-800">
            <div aria-live="polite" data-testid="plan-estimate" data-count={ranged ? (plan.data?.estimated_count ?? "") : ""}>
              {archiveOff ? (
                <ArchiveOffNotice />
              ) : plan.error ? (
                <ErrorMessage title="This filter cannot be used" error={plan.error} />
              ) : !ranged ? (
                <p className="text-sm text-zinc-600 dark:text-zinc-400" data-testid="archive-range-needed">
                  Choose the archived days: set both Created after and Created before.
                </p>
              ) : !plan.data ? (
                <span className="text-sm text-zinc-600 dark:text-zinc-400">Counting…</span>
              ) : (
                <p className="text-sm">
                  <span className="text-lg font-semibold tabular-nums">{count.toLocaleString()}</span> {family.noun} match
                  {count > 0 && (
                    <span className="text-zinc-600 dark:text-zinc-400">
                      {" "}
                      · {plan.data.estimated_batch.toLocaleString()} batch{plan.data.estimated_batch === 1 ? "" : "es"}
                    </span>
                  )}
                  <span className="block text-xs text-zinc-600 dark:text-zinc-400">Filter: {describeQuery(query, names)}</span>
                </p>
              )}
            </div>
            {archiveOff || !ranged ? null : plan.data && count === 0 ? (
              <p className="text-sm text-zinc-600 dark:text-zinc-400" data-testid="bulk-nothing">
                Nothing to do: widen the filter, or choose another operation.
              </p>
            ) : !confirming ? (
              <Button
                variant="primary"
                disabled={!count || create.isPending || (replay && !target.source_id)}
                onClick={() => setConfirming(true)}
                data-testid="bulk-start"
              >
                {family.verb} {count.toLocaleString()} {family.noun}…
              </Button>
            ) : null}
          </div>
          {confirming && (
            <div
              ref={confirmRef}
              tabIndex={-1}
              role="group"
              aria-label="Confirm"
              className="mt-4 rounded-md border border-amber-300 bg-amber-50 p-4 outline-none dark:border-amber-500/40 dark:bg-amber-500/10"
              data-testid="bulk-confirmation"
            >
              <p className="text-sm font-medium text-amber-950 dark:text-amber-100">
                {family.verb} {count.toLocaleString()} {family.noun}? {family.effect}
              </p>
              {replay && (
                <p className="mt-1 text-xs text-amber-900 dark:text-amber-200" data-testid="bulk-confirm-target">
                  Target:{" "}
                  {target.webhook_ids.length
                    ? `${target.webhook_ids.length} chosen connection${target.webhook_ids.length === 1 ? "" : "s"}`
                    : "every active connection"}{" "}
                  of the chosen source.
                </p>
              )}
              <p className="mt-1 text-xs text-amber-900 dark:text-amber-200">Records that arrive from now on are not included. You can cancel while it runs.</p>
              <div className="mt-3 flex gap-2">
                <Button variant="primary" onClick={() => create.mutate()} disabled={create.isPending} data-testid="bulk-confirm">
                  {create.isPending ? "Starting…" : `Yes, ${family.verb.toLowerCase()} them`}
                </Button>
                <Button onClick={() => setConfirming(false)}>Back</Button>
              </div>
            </div>
          )}
          {create.error && (
            <div className="mt-3">
              <ErrorMessage title="The operation could not start" error={create.error} />
            </div>
          )}
        </Card>
        {opId && (
          <Card title="3. Progress" data-testid="bulk-run">
            {op.error ? (
              <ErrorMessage title="This operation could not be loaded" error={op.error} onRetry={() => op.refetch()} />
            ) : !op.data ? (
              <p className="text-sm">Loading…</p>
            ) : (
              <RunProgress op={op.data} family={family} onCancel={() => cancel.mutate()} cancelling={cancel.isPending} cancelError={cancel.error} />
            )}
          </Card>
        )}
        <Card title={`Past operations: ${family.label.toLowerCase()}`} bodyClassName="p-0">
          {history.error ? (
            <div className="p-4">
              <ErrorMessage title="Past operations could not be loaded" error={history.error} />
            </div>
          ) : !history.data ? (
            <p className="p-4 text-sm">Loading…</p>
          ) : history.data.models.length === 0 ? (
            <div className="p-4">
              <EmptyState title="No operation yet">Build a filter above, check the count, and start the first one.</EmptyState>
            </div>
          ) : (
            <Table caption="Past operations" data-testid="bulk-history">
              <thead>
                <tr>
                  <Th>#</Th>
                  <Th>State</Th>
                  <Th>Filter</Th>
                  <Th className="text-right">Done</Th>
                  <Th className="text-right">Failed</Th>
                  <Th>Started</Th>
                </tr>
              </thead>
              <tbody>
                {history.data.models.map((h) => {
                  // An events retry's "Completed" says its events were queued, not delivered: not green in the list (its outcome is shown when selected).
                  const state = stateOf(h);
                  const s = family.id === "events.retry" && state.tone === "success" ? { ...state, tone: "neutral" as const } : state;
                  return (
                    <Tr key={h.id} onOpen={() => navigate({ op: h.id })} selected={h.id === opId} data-testid="bulk-history-row" data-id={h.id}>
                      <Td className="tabular-nums">{h.number}</Td>
                      <Td>
                        <Badge tone={s.tone === "accent" ? "accent" : s.tone === "success" ? "success" : s.tone === "danger" ? "danger" : "neutral"}>
                          {s.label}
                        </Badge>
                      </Td>
                      <Td className="max-w-xs truncate text-xs" title={describeQuery(h.query, names)}>
                        {describeQuery(h.query, names)}
                      </Td>
                      <Td className="text-right whitespace-nowrap tabular-nums">
                        {h.completed_count.toLocaleString()} / {h.estimated_count.toLocaleString()}
                      </Td>
                      <Td className="text-right tabular-nums">{h.failed_count ?? "—"}</Td>
                      <Td>
                        <RelativeTime iso={h.created_at} />
                      </Td>
                    </Tr>
                  );
                })}
              </tbody>
            </Table>
          )}
        </Card>
      </div>
    </>
  );
}

/** How the events an events retry queued fared since: delivered, failed again (counted up to a page each; `more` past that). */
type RetryOutcome = { delivered: number; failed: number; more: boolean };
const OUTCOME_PAGE = 250;

/**
 * The delivery outcome of events retry `op` once it has queued events (docs/dashboard.md#bulk-operations: an
 * operation completes when every event is queued, which says nothing of the deliveries): its events that are
 * SUCCESSFUL and FAILED now (`bulk_retry_id`), polled until none is left waiting.
 */
function useRetryOutcome(op: BulkOperation, enabled: boolean) {
  const count = (status: string) => api<Paged<{ id: string }>>(`events${qs({ bulk_retry_id: op.id, status, limit: OUTCOME_PAGE })}`);
  return useQuery({
    queryKey: ["bulk-outcome", op.id, op.completed_count],
    enabled,
    queryFn: async (): Promise<RetryOutcome> => {
      const [ok, bad] = await Promise.all([count("SUCCESSFUL"), count("FAILED")]);
      return { delivered: ok.models.length, failed: bad.models.length, more: Boolean(ok.pagination.next || bad.pagination.next) };
    },
    refetchInterval: (q) => (q.state.data && (q.state.data.more || q.state.data.delivered + q.state.data.failed >= op.completed_count) ? false : POLL_MS),
  });
}

/** A retry's state once its outcome is known: completed and all delivered (success), some failed again (danger), or still delivering. */
function retryState(op: BulkOperation, o: RetryOutcome | undefined): { label: string; tone: "accent" | "success" | "danger" } {
  if (o && o.failed > 0) return { label: `Completed, ${o.failed.toLocaleString()}${o.more ? "+" : ""} failed again`, tone: "danger" };
  if (o && (o.more || o.delivered >= op.completed_count)) return { label: "Completed", tone: "success" };
  return { label: "Completed, delivering", tone: "accent" };
}

function RunProgress({
  op,
  family,
  onCancel,
  cancelling,
  cancelError,
}: {
  op: BulkOperation;
  family: Family;
  onCancel: () => void;
  cancelling: boolean;
  cancelError: unknown;
}) {
  const retried = family.id === "events.retry" && Boolean(op.completed_at) && op.completed_count > 0;
  const outcome = useRetryOutcome(op, retried);
  const s = retried ? retryState(op, outcome.data) : stateOf(op);
  const done = op.completed_count;
  const issueId = typeof op.query.issue_id === "string" ? op.query.issue_id : null;
  return (
    <div className="flex flex-col gap-3" data-testid="bulk-progress" data-state={s.label} data-progress={op.progress}>
      <div className="flex flex-wrap items-center justify-between gap-2">
        <p className="text-sm">
          <span className="font-medium">
            {family.label} #{op.number}
          </span>{" "}
          <Badge tone={s.tone === "accent" ? "accent" : s.tone} data-testid="bulk-state">
            {s.label}
          </Badge>
        </p>
        {op.in_progress && (
          <Button variant="danger" size="sm" onClick={onCancel} disabled={cancelling} data-testid="bulk-cancel">
            {cancelling ? "Cancelling…" : "Cancel operation"}
          </Button>
        )}
      </div>
      <ProgressBar value={op.progress} label={`${family.label} #${op.number}`} tone={s.tone} />
      <p className="text-sm tabular-nums text-zinc-700 dark:text-zinc-300" aria-live="polite" data-testid="bulk-counts">
        {Math.round(op.progress * 100)}% · {done.toLocaleString()} of {op.estimated_count.toLocaleString()} {family.noun} handled
        {op.failed_count ? ` · ${op.failed_count.toLocaleString()} failed` : ""} · batch {op.processed_batch} of {op.estimated_batch}
      </p>
      {retried && outcome.data && (
        <p className="text-sm tabular-nums" data-testid="bulk-outcome" data-delivered={outcome.data.delivered} data-failed={outcome.data.failed}>
          Deliveries since: <span className="font-medium">{outcome.data.delivered.toLocaleString()}</span> delivered ·{" "}
          <span className={outcome.data.failed ? "font-medium text-rose-700 dark:text-rose-300" : "font-medium"}>{outcome.data.failed.toLocaleString()}</span>{" "}
          failed again
          {outcome.data.more
            ? ` (first ${OUTCOME_PAGE} of each counted)`
            : ` · ${Math.max(0, done - outcome.data.delivered - outcome.data.failed).toLocaleString()} still waiting`}
        </p>
      )}
      {issueId && (
        <p className="text-sm text-zinc-700 dark:text-zinc-300" data-testid="bulk-issue">
          These are the failed events of{" "}
          <a className="text-indigo-700 underline underline-offset-2 dark:text-indigo-300" href={`/dashboard/issues/${encodeURIComponent(issueId)}`}>
            issue {issueId}
          </a>
          : it resolves itself once every one of them is delivered.
        </p>
      )}
      {family.id !== "events.cancel" && op.completed_count > 0 && (
        <p>
          <ButtonLink href={`/dashboard/events?bulk_retry_id=${encodeURIComponent(op.id)}`} size="sm" data-testid="bulk-events-link">
            {family.id === "events.retry" ? "See the events it retried" : "See the events it created"}
          </ButtonLink>
        </p>
      )}
      {cancelError ? <ErrorMessage title="Cancelling failed" error={cancelError} /> : null}
      {!op.in_progress && op.cancelled_at && !op.completed_at && (
        <p className="text-sm text-zinc-600 dark:text-zinc-400">Stopped before its next batch. What it already did stays done.</p>
      )}
    </div>
  );
}

/**
 * A replay's target (`query.target`): a source, then optionally some of its connections. With none ticked the
 * requests go through every active connection of the source as the replay runs, including ones created after
 * the requests arrived (docs/gateway-api.md "Bulk operations").
 */
function ReplayTargetPicker({ value, onChange }: { value: Target; onChange: (t: Target) => void }) {
  const sources = useNamed("sources");
  const connections = useQuery({
    queryKey: ["replay-connections", value.source_id],
    queryFn: () => apiAll<Connection>(`connections${qs({ source_id: value.source_id, order_by: "name", dir: "asc" })}`),
    enabled: Boolean(value.source_id),
  });
  const toggle = (id: string, on: boolean) => onChange({ ...value, webhook_ids: on ? [...value.webhook_ids, id] : value.webhook_ids.filter((w) => w !== id) });
  return (
    <fieldset className="mt-4 border-t border-zinc-200 pt-4 dark:border-zinc-800" data-testid="replay-target">
      <legend className="sr-only">Replay target</legend>
      <h3 className="text-sm font-semibold text-zinc-900 dark:text-zinc-100">Replay into</h3>
      <p className="mt-0.5 mb-3 text-xs text-zinc-600 dark:text-zinc-400">
        The source whose connections receive the requests; it may differ from the source they arrived at.
      </p>
      <div className="grid grid-cols-1 gap-3 sm:grid-cols-2">
        <Field label="Target source">
          {(p) => (
            <Select
              {...p}
              value={value.source_id ?? ""}
              onChange={(e) => onChange({ source_id: e.target.value || undefined, webhook_ids: [] })}
              data-testid="target-source"
            >
              <option value="">Choose a source…</option>
              {(sources.data?.models ?? []).map((s) => (
                <option key={s.id} value={s.id}>
                  {s.name}
                </option>
              ))}
            </Select>
          )}
        </Field>
        {value.source_id && (
          <div className="flex flex-col gap-1">
            <span className="text-xs font-medium text-zinc-700 dark:text-zinc-300">Connections (none ticked: all active ones)</span>
            {connections.error ? (
              <ErrorMessage title="Connections could not be loaded" error={connections.error} />
            ) : !connections.data ? (
              <span className="text-sm text-zinc-600 dark:text-zinc-400">Loading…</span>
            ) : connections.data.models.length === 0 ? (
              <span className="text-sm text-zinc-600 dark:text-zinc-400">This source has no connection yet: create one, then replay.</span>
            ) : (
              connections.data.models.map((c) => (
                <Checkbox
                  key={c.id}
                  label={c.full_name ?? c.name}
                  checked={value.webhook_ids.includes(c.id)}
                  onChange={(e) => toggle(c.id, e.target.checked)}
                  data-testid={`target-connection-${c.id}`}
                />
              ))
            )}
          </div>
        )}
      </div>
      {!value.source_id && (
        <p className="mt-2 text-xs text-amber-800 dark:text-amber-300" data-testid="target-needed">
          Choose a target source to replay.
        </p>
      )}
    </fieldset>
  );
}
