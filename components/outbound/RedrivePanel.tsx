"use client";
/**
 * Bulk redrive of failed outbound deliveries (docs/outbound.md "Bulk redrive"), shared by the dashboard's
 * Outbound › Redrive page (operator: any tenant) and the portal (a tenant: its own destinations): a
 * filter, its plan (how many deliveries, in how many batches), the run with a live progress bar (the
 * redrive polled every second), cancel, and the recent runs. `call` is the surface's API client and
 * `base` the outbound API's path before `/redrives`. With `kind="archive"` the same panel replays from
 * the archive (docs/outbound.md "Replay from the archive", `/archive-replays`): a time range, a topic and
 * the one destination every archived event is republished to, as a new event marked as a replay.
 */
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { Badge } from "@/components/ui/Badge";
import { Button } from "@/components/ui/Button";
import { Card, Skeleton } from "@/components/ui/Card";
import { Field, Input, Select } from "@/components/ui/Field";
import { Notice } from "@/components/ui/Notice";
import { ProgressBar } from "@/components/ui/ProgressBar";
import { Table, Td, Th } from "@/components/ui/Table";
import { RelativeTime } from "@/components/ui/Time";
import type { ArchiveReplayQuery } from "@/lib/outbound/archive-replay";
import type { Redrive, RedriveFilter } from "@/lib/outbound/redrive";

type Call = <T>(path: string, init?: { method?: string; body?: unknown }) => Promise<T>;
type Form = { tenant: string; destination: string; topic: string; status: "" | "failed" | "retrying"; from: string; to: string; minAttempts: string };

/** A run as listed: a redrive's `filter`, or an archive replay's `query`. */
type Run = Omit<Redrive, "filter"> & { filter?: RedriveFilter; query?: Omit<ArchiveReplayQuery, "kind"> };
type Kind = "redrive" | "archive";

/** What differs between a redrive and a replay from the archive: its path, its words. */
const KINDS = {
  redrive: {
    path: "redrives",
    which: "Which deliveries",
    plan: "Plan redrive",
    planned: (n: number, b: string) => `${n === 1 ? "1 delivery" : `${n} deliveries`} whose last attempt failed, in ${b}.`,
    start: (n: number) => `Redrive ${n === 1 ? "1 delivery" : `${n} deliveries`}`,
    current: "This redrive",
    done: (r: Run) =>
      `${r.completed_count} of ${r.estimated_count} queued for a new attempt${r.failed_count ? `, ${r.failed_count} skipped (destination disabled or changed)` : ""}.`,
    describe: (r: Run) => JSON.stringify(r.filter),
    recent: "Recent redrives",
    none: "No redrive yet.",
  },
  archive: {
    path: "archive-replays",
    which: "Which archived events",
    plan: "Plan replay",
    planned: (n: number, b: string) => `The archived days of this range hold ${n === 1 ? "1 event" : `${n} events`} of every tenant and topic (at most ${b}).`,
    start: () => "Replay from archive",
    current: "This replay",
    done: (r: Run) =>
      `${r.completed_count} archived ${r.completed_count === 1 ? "event" : "events"} republished as new events marked as replays${r.failed_count ? `, ${r.failed_count} skipped (destination disabled or deleted)` : ""}${r.completed_at ? "" : " so far"}.`,
    // "des_… · 2026-10-16 to 2026-10-18 · order.created": where to, the days, the topics.
    describe: (r: Run) =>
      r.query
        ? [r.query.destination_id, `${r.query.time.gte.slice(0, 10)} to ${r.query.time.lte.slice(0, 10)}`, ...[r.query.topic ?? []].flat()].join(" · ")
        : "",
    recent: "Past replays from the archive",
    none: "No replay from the archive yet.",
  },
} satisfies Record<Kind, unknown>;

/** Whether an error is the API's "no archive configured" answer (docs/operations.md "Archive"). */
export const isArchiveOff = (e: unknown) => e instanceof Error && /needs an archive/i.test(e.message);

/** The notice shown instead of an error when the server keeps no archive. */
export function ArchiveOffNotice() {
  return (
    <Notice tone="warning" data-testid="archive-off">
      This server keeps no archive (neither ARCHIVE_DIR nor ARCHIVE_S3_BUCKET is set), so there is nothing to replay from. Days past retention are dropped
      without an archive.
    </Notice>
  );
}

const EMPTY: Form = { tenant: "", destination: "", topic: "", status: "", from: "", to: "", minAttempts: "" };
const POLL_MS = 1_000;

/** The API filter of the form's values (empty fields left out; local times as ISO). */
function filterOf(f: Form, fixedDestination?: string): RedriveFilter {
  const destination = fixedDestination ?? f.destination.trim();
  return {
    ...(f.tenant.trim() ? { tenant_id: f.tenant.trim() } : {}),
    ...(destination ? { destination_id: destination } : {}),
    ...(f.topic.trim() ? { topic: f.topic.trim() } : {}),
    ...(f.status ? { status: f.status } : {}),
    ...(f.from || f.to ? { time: { ...(f.from ? { gte: new Date(f.from).toISOString() } : {}), ...(f.to ? { lte: new Date(f.to).toISOString() } : {}) } } : {}),
    ...(f.minAttempts ? { attempts: { gte: Number(f.minAttempts) } } : {}),
  };
}

/** The API body of an archive replay of the form's values (empty fields left out; local times as ISO). */
function archiveQueryOf(f: Form, fixedDestination?: string): Partial<ArchiveReplayQuery> {
  const destination = fixedDestination ?? f.destination.trim();
  const iso = (v: string) => (v && !Number.isNaN(new Date(v).getTime()) ? new Date(v).toISOString() : "");
  return {
    ...(f.tenant.trim() ? { tenant_id: f.tenant.trim() } : {}),
    destination_id: destination,
    ...(f.topic.trim() ? { topic: f.topic.trim() } : {}),
    time: { gte: iso(f.from), lte: iso(f.to) },
  };
}

/** In words and tone: where a run is. */
function stateOf(r: Run): { label: string; tone: "accent" | "success" | "neutral" | "danger" } {
  if (r.cancelled_at && !r.completed_at) return { label: "Cancelled", tone: "neutral" };
  if (r.in_progress) return { label: "In progress", tone: "accent" };
  if (r.completed_at) return r.failed_count ? { label: "Completed with skips", tone: "danger" } : { label: "Completed", tone: "success" };
  return { label: "Stopped", tone: "neutral" };
}

const errorText = (e: unknown) => (e instanceof Error ? e.message : "Something went wrong.");

/**
 * The redrive panel. `tenantField`: the operator may name a tenant; `destinations`: a choice of
 * destinations (the portal's), else a free destination id; `fixedDestination`: always this destination
 * (a portal destination's page).
 */
export function RedrivePanel({
  call,
  base,
  kind = "redrive",
  tenantField,
  tenant,
  destinations,
  fixedDestination,
}: {
  call: Call;
  base: string;
  /** "archive": a replay from the archive instead of a redrive. */
  kind?: Kind;
  tenantField?: boolean;
  /** The operator's replay for one tenant: its runs only, and sent as `tenant_id`. */
  tenant?: string;
  destinations?: { id: string; label: string }[];
  fixedDestination?: string;
}) {
  const client = useQueryClient();
  const k = KINDS[kind];
  const archive = kind === "archive";
  const [form, setForm] = useState<Form>(tenant ? { ...EMPTY, tenant } : EMPTY);
  const [runId, setRunId] = useState<string | null>(null);
  const filter = archive ? archiveQueryOf(form, fixedDestination) : filterOf(form, fixedDestination);
  const set = (key: keyof Form) => (e: React.ChangeEvent<HTMLInputElement | HTMLSelectElement>) => setForm({ ...form, [key]: e.target.value });
  const path = `${base}/${k.path}`;

  const plan = useMutation({
    mutationFn: () => call<{ estimated_count: number; estimated_batch: number }>(`${path}/plan`, { method: "POST", body: filter }),
  });
  const create = useMutation({
    mutationFn: () => call<Run>(path, { method: "POST", body: filter }),
    onSuccess: (r) => {
      setRunId(r.id);
      plan.reset();
      // The new run is listed at once, before the list is read again.
      client.setQueryData<{ models: Run[] }>(["redrives", path, true], (old) => ({ models: [r, ...(old?.models ?? []).filter((m) => m.id !== r.id)] }));
      void client.invalidateQueries({ queryKey: ["redrives", path] });
    },
  });
  const run = useQuery({
    queryKey: ["redrive", path, runId],
    queryFn: () => call<Run>(`${path}/${runId}`),
    enabled: Boolean(runId),
    refetchInterval: (q) => (q.state.data && !q.state.data.in_progress ? false : POLL_MS),
  });
  const cancel = useMutation({
    mutationFn: (id: string) => call<Run>(`${path}/${id}/cancel`, { method: "POST" }),
    onSuccess: (r) => client.setQueryData(["redrive", path, r.id], r),
  });
  const history = useQuery({
    queryKey: ["redrives", path, run.data?.in_progress],
    queryFn: () => call<{ models: Run[] }>(`${path}?limit=10${tenant ? `&tenant_id=${encodeURIComponent(tenant)}` : ""}`),
    // While a newer list loads (a run just ended), the previous one stays.
    placeholderData: (previous) => previous,
  });
  const current = run.data;

  return (
    <div className="flex flex-col gap-4">
      <Card title={k.which} level={2}>
        <form
          className="grid grid-cols-1 gap-3 sm:grid-cols-2 lg:grid-cols-3"
          onSubmit={(e) => {
            e.preventDefault();
            plan.mutate();
          }}
        >
          {tenantField && !tenant && (
            <Field label="Tenant">{(p) => <Input {...p} value={form.tenant} onChange={set("tenant")} placeholder="All tenants" />}</Field>
          )}
          {!fixedDestination &&
            (destinations ? (
              <Field label="Destination">
                {(p) => (
                  <Select {...p} required={archive} value={form.destination} onChange={set("destination")}>
                    <option value="">{archive ? "Choose a destination…" : "All destinations"}</option>
                    {destinations.map((d) => (
                      <option key={d.id} value={d.id}>
                        {d.label}
                      </option>
                    ))}
                  </Select>
                )}
              </Field>
            ) : (
              <Field label="Destination id">
                {(p) => <Input {...p} required={archive} value={form.destination} onChange={set("destination")} placeholder="des_…" />}
              </Field>
            ))}
          <Field label="Topic">{(p) => <Input {...p} value={form.topic} onChange={set("topic")} placeholder="All topics" />}</Field>
          {!archive && (
            <Field label="Status" hint="Failed: no retries left. Retrying: waiting for an automatic retry.">
              {(p) => (
                <Select {...p} value={form.status} onChange={set("status")}>
                  <option value="">Failed or retrying</option>
                  <option value="failed">Failed</option>
                  <option value="retrying">Retrying</option>
                </Select>
              )}
            </Field>
          )}
          <Field label="Events from" hint={archive ? "Archived days only: those retention archived before it dropped them." : undefined}>
            {(p) => <Input {...p} type="datetime-local" required={archive} value={form.from} onChange={set("from")} />}
          </Field>
          <Field label="Events until">{(p) => <Input {...p} type="datetime-local" required={archive} value={form.to} onChange={set("to")} />}</Field>
          {!archive && (
            <Field label="At least this many attempts">
              {(p) => <Input {...p} type="number" min={0} value={form.minAttempts} onChange={set("minAttempts")} />}
            </Field>
          )}
          <div className="flex flex-wrap items-end gap-2 sm:col-span-2 lg:col-span-3">
            <Button type="submit" variant="secondary" disabled={plan.isPending}>
              {k.plan}
            </Button>
            {plan.data && (
              <>
                <p className="text-sm text-zinc-700 dark:text-zinc-300" data-testid="redrive-plan" role="status">
                  {k.planned(plan.data.estimated_count, plan.data.estimated_batch === 1 ? "1 batch" : `${plan.data.estimated_batch} batches`)}
                </p>
                <Button variant="brand" disabled={plan.data.estimated_count === 0 || create.isPending} onClick={() => create.mutate()}>
                  {k.start(plan.data.estimated_count)}
                </Button>
              </>
            )}
          </div>
        </form>
        {isArchiveOff(plan.error ?? create.error) ? (
          <div className="mt-3">
            <ArchiveOffNotice />
          </div>
        ) : (
          (plan.error || create.error) && (
            <Notice tone="danger" className="mt-3">
              {errorText(plan.error ?? create.error)}
            </Notice>
          )
        )}
      </Card>

      {current && (
        <Card
          title={k.current}
          meta={<Badge tone={stateOf(current).tone}>{stateOf(current).label}</Badge>}
          actions={
            current.in_progress ? (
              <Button variant="dangerOutline" size="sm" disabled={cancel.isPending} onClick={() => cancel.mutate(current.id)}>
                Cancel
              </Button>
            ) : null
          }
        >
          <ProgressBar value={current.progress} label={`${k.current} ${current.id}`} tone={stateOf(current).tone} />
          <p className="mt-2 text-sm text-zinc-700 dark:text-zinc-300" data-testid="redrive-progress">
            {k.done(current)}
          </p>
        </Card>
      )}

      <Card title={k.recent} bodyClassName="p-0">
        {history.data && history.data.models.length > 0 ? (
          <Table caption={k.recent} data-testid="redrive-history">
            <thead>
              <tr>
                <Th>Started</Th>
                <Th>{archive ? "Query" : "Filter"}</Th>
                <Th>State</Th>
                <Th>{archive ? "Republished" : "Queued"}</Th>
              </tr>
            </thead>
            <tbody>
              {history.data.models.map((r) => (
                <tr key={r.id}>
                  <Td>
                    <RelativeTime iso={r.created_at} />
                  </Td>
                  <Td className="font-mono text-xs break-all">{k.describe(r)}</Td>
                  <Td>{stateOf(r).label}</Td>
                  <Td>
                    {r.completed_count} / {r.estimated_count}
                  </Td>
                </tr>
              ))}
            </tbody>
          </Table>
        ) : history.isPending ? (
          <Skeleton />
        ) : (
          <p className="p-4 text-sm text-zinc-600 dark:text-zinc-400">{history.isError ? errorText(history.error) : k.none}</p>
        )}
      </Card>
    </div>
  );
}
