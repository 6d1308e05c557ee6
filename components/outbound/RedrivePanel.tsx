"use client";
/**
 * Bulk redrive of failed outbound deliveries (docs/outbound.md "Bulk redrive"), shared by the dashboard's
 * Outbound › Redrive page (operator: any tenant) and the portal (a tenant: its own destinations): a
 * filter, its plan (how many deliveries, in how many batches), the run with a live progress bar (the
 * redrive polled every second), cancel, and the recent runs. `call` is the surface's API client and
 * `base` the outbound API's path before `/redrives`.
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
import type { Redrive, RedriveFilter } from "@/lib/outbound/redrive";

type Call = <T>(path: string, init?: { method?: string; body?: unknown }) => Promise<T>;
type Form = { tenant: string; destination: string; topic: string; status: "" | "failed" | "retrying"; from: string; to: string; minAttempts: string };

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

/** In words and tone: where a redrive is. */
function stateOf(r: Redrive): { label: string; tone: "accent" | "success" | "neutral" | "danger" } {
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
  tenantField,
  destinations,
  fixedDestination,
}: {
  call: Call;
  base: string;
  tenantField?: boolean;
  destinations?: { id: string; label: string }[];
  fixedDestination?: string;
}) {
  const client = useQueryClient();
  const [form, setForm] = useState<Form>(EMPTY);
  const [runId, setRunId] = useState<string | null>(null);
  const filter = filterOf(form, fixedDestination);
  const set = (k: keyof Form) => (e: React.ChangeEvent<HTMLInputElement | HTMLSelectElement>) => setForm({ ...form, [k]: e.target.value });

  const plan = useMutation({
    mutationFn: () => call<{ estimated_count: number; estimated_batch: number }>(`${base}/redrives/plan`, { method: "POST", body: filter }),
  });
  const create = useMutation({
    mutationFn: () => call<Redrive>(`${base}/redrives`, { method: "POST", body: filter }),
    onSuccess: (r) => {
      setRunId(r.id);
      plan.reset();
      void client.invalidateQueries({ queryKey: ["redrives", base] });
    },
  });
  const run = useQuery({
    queryKey: ["redrive", base, runId],
    queryFn: () => call<Redrive>(`${base}/redrives/${runId}`),
    enabled: Boolean(runId),
    refetchInterval: (q) => (q.state.data && !q.state.data.in_progress ? false : POLL_MS),
  });
  const cancel = useMutation({
    mutationFn: (id: string) => call<Redrive>(`${base}/redrives/${id}/cancel`, { method: "POST" }),
    onSuccess: () => void client.invalidateQueries({ queryKey: ["redrive", base] }),
  });
  const history = useQuery({
    queryKey: ["redrives", base, run.data?.in_progress],
    queryFn: () => call<{ models: Redrive[] }>(`${base}/redrives?limit=10`),
    // While a newer list loads (a run just ended), the previous one stays.
    placeholderData: (previous) => previous,
  });
  const current = run.data;

  return (
    <div className="flex flex-col gap-4">
      <Card title="Which deliveries" level={2}>
        <form
          className="grid grid-cols-1 gap-3 sm:grid-cols-2 lg:grid-cols-3"
          onSubmit={(e) => {
            e.preventDefault();
            plan.mutate();
          }}
        >
          {tenantField && <Field label="Tenant">{(p) => <Input {...p} value={form.tenant} onChange={set("tenant")} placeholder="All tenants" />}</Field>}
          {!fixedDestination &&
            (destinations ? (
              <Field label="Destination">
                {(p) => (
                  <Select {...p} value={form.destination} onChange={set("destination")}>
                    <option value="">All destinations</option>
                    {destinations.map((d) => (
                      <option key={d.id} value={d.id}>
                        {d.label}
                      </option>
                    ))}
                  </Select>
                )}
              </Field>
            ) : (
              <Field label="Destination id">{(p) => <Input {...p} value={form.destination} onChange={set("destination")} placeholder="des_…" />}</Field>
            ))}
          <Field label="Topic">{(p) => <Input {...p} value={form.topic} onChange={set("topic")} placeholder="All topics" />}</Field>
          <Field label="Status" hint="Failed: no retries left. Retrying: waiting for an automatic retry.">
            {(p) => (
              <Select {...p} value={form.status} onChange={set("status")}>
                <option value="">Failed or retrying</option>
                <option value="failed">Failed</option>
                <option value="retrying">Retrying</option>
              </Select>
            )}
          </Field>
          <Field label="Events from">{(p) => <Input {...p} type="datetime-local" value={form.from} onChange={set("from")} />}</Field>
          <Field label="Events until">{(p) => <Input {...p} type="datetime-local" value={form.to} onChange={set("to")} />}</Field>
          <Field label="At least this many attempts">
            {(p) => <Input {...p} type="number" min={0} value={form.minAttempts} onChange={set("minAttempts")} />}
          </Field>
          <div className="flex flex-wrap items-end gap-2 sm:col-span-2 lg:col-span-3">
            <Button type="submit" variant="secondary" disabled={plan.isPending}>
              Plan redrive
            </Button>
            {plan.data && (
              <>
                <p className="text-sm text-zinc-700 dark:text-zinc-300" data-testid="redrive-plan" role="status">
                  {plan.data.estimated_count === 1 ? "1 delivery" : `${plan.data.estimated_count} deliveries`} whose last attempt failed, in{" "}
                  {plan.data.estimated_batch === 1 ? "1 batch" : `${plan.data.estimated_batch} batches`}.
                </p>
                <Button variant="brand" disabled={plan.data.estimated_count === 0 || create.isPending} onClick={() => create.mutate()}>
                  Redrive {plan.data.estimated_count === 1 ? "1 delivery" : `${plan.data.estimated_count} deliveries`}
                </Button>
              </>
            )}
          </div>
        </form>
        {(plan.error || create.error) && (
          <Notice tone="danger" className="mt-3">
            {errorText(plan.error ?? create.error)}
          </Notice>
        )}
      </Card>

      {current && (
        <Card
          title="This redrive"
          meta={<Badge tone={stateOf(current).tone}>{stateOf(current).label}</Badge>}
          actions={
            current.in_progress ? (
              <Button variant="dangerOutline" size="sm" disabled={cancel.isPending} onClick={() => cancel.mutate(current.id)}>
                Cancel
              </Button>
            ) : null
          }
        >
          <ProgressBar value={current.progress} label={`Redrive ${current.id}`} tone={stateOf(current).tone} />
          <p className="mt-2 text-sm text-zinc-700 dark:text-zinc-300" data-testid="redrive-progress">
            {current.completed_count} of {current.estimated_count} queued for a new attempt
            {current.failed_count ? `, ${current.failed_count} skipped (destination disabled or changed)` : ""}.
          </p>
        </Card>
      )}

      <Card title="Recent redrives" bodyClassName="p-0">
        {history.data && history.data.models.length > 0 ? (
          <Table caption="Recent redrives">
            <thead>
              <tr>
                <Th>Started</Th>
                <Th>Filter</Th>
                <Th>State</Th>
                <Th>Queued</Th>
              </tr>
            </thead>
            <tbody>
              {history.data.models.map((r) => (
                <tr key={r.id}>
                  <Td>
                    <RelativeTime iso={r.created_at} />
                  </Td>
                  <Td className="font-mono text-xs break-all">{JSON.stringify(r.filter)}</Td>
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
          <p className="p-4 text-sm text-zinc-600 dark:text-zinc-400">{history.isError ? errorText(history.error) : "No redrive yet."}</p>
        )}
      </Card>
    </div>
  );
}
