"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useMemo, useState } from "react";
import { api, qs } from "@/components/dashboard/api";
import { fieldErrors, listField, plural, when } from "@/components/dashboard/forms";
import { OUTBOUND, type Tenant } from "@/components/dashboard/pages/Tenants";
import { EnableDeleteActions, QueryView } from "@/components/dashboard/pages/QueryView";
import { Badge } from "@/components/ui/Badge";
import { Button, ButtonLink } from "@/components/ui/Button";
import { Card } from "@/components/ui/Card";
import { type ChartPoint, TimeChart } from "@/components/ui/Chart";
import { EmptyState, ErrorMessage } from "@/components/ui/EmptyState";
import { Field, Input, Select } from "@/components/ui/Field";
import { PageHeader } from "@/components/ui/PageHeader";
import { ConfirmDialog } from "@/components/ui/ConfirmDialog";
import { type Health, HealthBadge, HealthLine } from "@/components/ui/HealthBadge";
import { OutboundAttempts, OutboundEvents } from "@/components/dashboard/pages/OutboundRecords";
import { Table, Td, Th } from "@/components/ui/Table";
import type { toDestination } from "@/lib/outbound/destinations";

/* The outbound API's models, from the server's own types (type-only imports). */
type Destination = ReturnType<typeof toDestination> & { health?: Health };
type MetricsRow = { time_bucket: string; metrics: Record<string, number | null> };

const target = (d: Destination) => d.config.url ?? d.config.source_id ?? d.config.server_url ?? "—";

/**
 * One outbound tenant (docs/dashboard.md "Outbound"): its portal, delivery chart, destinations with their
 * delivery health, attempts and events (paged, with responses and payloads; retry on failed attempts), and
 * deleting it, apart at the bottom behind a confirmation.
 */
export function TenantDetail({ tenant }: { tenant: string }) {
  const router = useRouter();
  const client = useQueryClient();
  const base = `${OUTBOUND}/tenants/${encodeURIComponent(tenant)}`;
  const t = useQuery({ queryKey: ["tenant", tenant], queryFn: () => api<Tenant>(base) });
  const [portalError, setPortalError] = useState<unknown>(null);
  const remove = useMutation({
    mutationFn: () => api(base, { method: "DELETE" }),
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: ["tenants"] });
      router.push("/dashboard/outbound");
    },
  });

  async function openPortal() {
    setPortalError(null);
    // Open the window now (a popup blocker allows it during the click), then point it at the signed URL.
    const win = window.open("about:blank", "_blank");
    try {
      const theme = window.matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light";
      const { redirect_url } = await api<{ redirect_url: string }>(`${base}/portal?theme=${theme}`);
      if (win) {
        win.opener = null;
        win.location.href = redirect_url;
      } else window.location.assign(redirect_url);
    } catch (err) {
      win?.close();
      setPortalError(err);
    }
  }

  if (t.error) return <ErrorMessage title={`Tenant “${tenant}” could not be loaded`} error={t.error} onRetry={() => t.refetch()} />;
  return (
    <>
      <PageHeader
        title={tenant}
        description={
          t.data ? (
            <>
              Created {when(t.data.created_at)} · {plural(t.data.destinations_count, "destination")}
            </>
          ) : (
            "Loading…"
          )
        }
        actions={
          <>
            <ButtonLink href="/dashboard/outbound" variant="ghost">
              All tenants
            </ButtonLink>
            <ButtonLink href={`/dashboard/outbound/${encodeURIComponent(tenant)}/archive-replay`} data-testid="tenant-archive-replay">
              Replay from archive
            </ButtonLink>
            <Button variant="primary" onClick={() => void openPortal()} data-testid="open-portal">
              Open portal
            </Button>
          </>
        }
      />
      {portalError != null && (
        <div className="mb-4">
          <ErrorMessage title="The portal link could not be made" error={portalError} />
        </div>
      )}
      <div className="grid grid-cols-1 gap-4">
        <DeliveryChart tenant={tenant} />
        <Destinations tenant={tenant} base={base} />
        <OutboundAttempts tenant={tenant} />
        <OutboundEvents tenant={tenant} />
        <DangerZone tenant={tenant} pending={remove.isPending} error={remove.error} onDelete={() => remove.mutate()} />
      </div>
    </>
  );
}

function DeliveryChart({ tenant }: { tenant: string }) {
  // The last 24 hours up to the next full hour, as of the first render.
  const [now] = useState(() => Date.now());
  const path = useMemo(() => {
    const end = new Date(Math.ceil(now / 3_600_000) * 3_600_000);
    const start = new Date(end.getTime() - 24 * 3_600_000);
    return `${OUTBOUND}/metrics/attempts${qs({ "time[start]": start.toISOString(), "time[end]": end.toISOString(), granularity: "1h", measures: ["successful_count", "failed_count"], "filters[tenant_id]": tenant })}`;
  }, [now, tenant]);
  const m = useQuery({ queryKey: ["tenant-metrics", path], queryFn: () => api<{ data: MetricsRow[] }>(path), refetchInterval: 30_000 });
  const points: ChartPoint[] = (m.data?.data ?? []).map((r) => ({ time: r.time_bucket, ...r.metrics }));
  const total = points.reduce((s, p) => s + Number(p.successful_count ?? 0) + Number(p.failed_count ?? 0), 0);
  return (
    <Card
      title="Delivery attempts, last 24 hours"
      actions={m.data && <span className="text-xs text-zinc-600 dark:text-zinc-400">{plural(total, "attempt")}</span>}
      data-testid="tenant-chart"
    >
      {m.error ? (
        <ErrorMessage title="The chart could not be loaded" error={m.error} onRetry={() => m.refetch()} />
      ) : !m.data ? (
        <div role="status" className="h-[200px] animate-pulse rounded bg-zinc-100 dark:bg-zinc-800/60" aria-label="Loading" />
      ) : (
        <TimeChart
          data={points}
          bucket="1h"
          label={`Delivery attempts of ${tenant}, last 24 hours: ${total}`}
          series={[
            { key: "successful_count", label: "Successful", color: "emerald" },
            { key: "failed_count", label: "Failed", color: "rose" },
          ]}
        />
      )}
    </Card>
  );
}

/**
 * A destination's ordered delivery in the table (docs/outbound.md "Ordered delivery"): its key, and under
 * `block` how many keys are blocked with a button that releases them all. The cached list drops the
 * released keys at once, then is read again. Nothing for an unordered destination.
 */
function OrderingCell({ d, base, tenant }: { d: Destination; base: string; tenant: string }) {
  const client = useQueryClient();
  const release = useMutation({
    mutationFn: () => api<{ released: number }>(`${base}/destinations/${encodeURIComponent(d.id)}/ordering/release`, { method: "POST" }),
    onSuccess: () => {
      client.setQueryData<Destination[]>(["tenant-destinations", tenant], (list) =>
        list?.map((x) => (x.id === d.id && x.ordering ? { ...x, ordering: { ...x.ordering, blocked_keys: [] } } : x)),
      );
      void client.invalidateQueries({ queryKey: ["tenant-destinations", tenant] });
    },
  });
  if (!d.ordering) return null;
  const blocked = d.ordering.blocked_keys?.length ?? 0;
  return (
    <span className="mt-1 block space-y-1 text-xs" data-testid="tenant-destination-ordering">
      <Badge compact title={d.ordering.key ? `One sequence per value of ${d.ordering.key}` : "The whole destination is one sequence"}>
        Ordered{d.ordering.key ? ` by ${d.ordering.key}` : ""}
      </Badge>
      {blocked > 0 && (
        <span className="flex flex-wrap items-center gap-2">
          <span className="text-amber-800 dark:text-amber-300">{plural(blocked, "key")} blocked</span>
          <Button size="xs" variant="secondary" disabled={release.isPending} onClick={() => release.mutate()}>
            Release
          </Button>
        </span>
      )}
      {release.isError && (
        <span role="alert" className="block text-red-700 dark:text-red-400">
          Not released: {release.error.message}
        </span>
      )}
    </span>
  );
}

function Destinations({ tenant, base }: { tenant: string; base: string }) {
  const client = useQueryClient();
  const list = useQuery({
    queryKey: ["tenant-destinations", tenant],
    queryFn: () => api<Destination[]>(`${base}/destinations?include=health`),
    refetchInterval: 30_000,
  });
  const [type, setType] = useState("webhook");
  const [url, setUrl] = useState("");
  const [topics, setTopics] = useState("*");
  const [errors, setErrors] = useState<Record<string, string>>({});
  const refresh = () => {
    void client.invalidateQueries({ queryKey: ["tenant-destinations", tenant] });
    void client.invalidateQueries({ queryKey: ["tenant", tenant] });
  };
  const create = useMutation({
    mutationFn: () =>
      api(`${base}/destinations`, {
        method: "POST",
        body: { type, topics: topics.trim() === "*" ? "*" : (listField(topics) ?? []), config: { url: url.trim() } },
      }),
    onMutate: () => setErrors({}),
    onError: (err) => setErrors(fieldErrors(err)),
    onSuccess: () => (setUrl(""), refresh()),
  });
  const act = useMutation({
    mutationFn: ({ d, verb }: { d: Destination; verb: "enable" | "disable" | "delete" }) =>
      verb === "delete" ? api(`${base}/destinations/${d.id}`, { method: "DELETE" }) : api(`${base}/destinations/${d.id}/${verb}`, { method: "PUT" }),
    onSettled: refresh,
  });
  return (
    <Card title="Destinations" bodyClassName="p-0!">
      {act.error && (
        <div className="p-4">
          <ErrorMessage title="The destination could not be changed" error={act.error} />
        </div>
      )}
      <QueryView
        query={list}
        what="Destinations"
        inset
        height="h-16"
        isEmpty={(d) => d.length === 0}
        empty={
          <EmptyState title="No destinations">
            Add a webhook URL below (or let the tenant add one in its portal); events published for this tenant are delivered there.
          </EmptyState>
        }
      >
        {(d) => (
          <Table caption="Destinations">
            <thead>
              <tr>
                <Th>Destination</Th>
                <Th>Type</Th>
                <Th>Target</Th>
                <Th>Topics</Th>
                <Th>State</Th>
                <Th>Last 24 hours</Th>
                <Th>
                  <span className="sr-only">Actions</span>
                </Th>
              </tr>
            </thead>
            <tbody>
              {d.map((d) => (
                <tr key={d.id} data-testid="tenant-destination">
                  <Td className="font-mono text-xs">{d.id}</Td>
                  <Td>
                    <Badge tone="accent">{d.type}</Badge>
                  </Td>
                  <Td>
                    <code className="block max-w-72 truncate text-xs" title={target(d)}>
                      {target(d)}
                    </code>
                  </Td>
                  <Td className="text-xs" data-testid="tenant-destination-topics">
                    {d.topics.includes("*") ? "all" : d.topics.join(", ")}
                  </Td>
                  <Td>
                    {d.disabled_at ? <Badge>Disabled</Badge> : <Badge tone="success">Enabled</Badge>}
                    <OrderingCell d={d} base={base} tenant={tenant} />
                  </Td>
                  <Td className="min-w-48">
                    <HealthBadge health={d.health} />
                    <HealthLine health={d.health} className="mt-1 block text-xs text-zinc-600 dark:text-zinc-400" />
                  </Td>
                  <Td>
                    <EnableDeleteActions
                      disabled={Boolean(d.disabled_at)}
                      busy={act.isPending}
                      label={`destination ${d.id}`}
                      onToggle={() => act.mutate({ d, verb: d.disabled_at ? "enable" : "disable" })}
                      onDelete={() => act.mutate({ d, verb: "delete" })}
                    />
                  </Td>
                </tr>
              ))}
            </tbody>
          </Table>
        )}
      </QueryView>
      <form
        className="grid gap-3 border-t border-zinc-200 p-4 sm:grid-cols-[10rem_1fr_12rem_auto] sm:items-start dark:border-zinc-800"
        onSubmit={(e) => (e.preventDefault(), create.mutate())}
        noValidate
      >
        <Field label="Type">
          {(p) => (
            <Select {...p} value={type} onChange={(e) => setType(e.target.value)}>
              <option value="webhook">Webhook</option>
              <option value="standard_webhook">Standard Webhooks</option>
            </Select>
          )}
        </Field>
        <Field label="URL" error={errors["config.url"]}>
          {(p) => (
            <Input
              {...p}
              type="url"
              inputMode="url"
              value={url}
              onChange={(e) => setUrl(e.target.value)}
              placeholder="https://customer.example/hooks"
              data-testid="outbound-destination-url"
            />
          )}
        </Field>
        <Field label="Topics" error={errors.topics} hint="* or a comma list">
          {(p) => <Input {...p} value={topics} onChange={(e) => setTopics(e.target.value)} />}
        </Field>
        <Button type="submit" className="sm:mt-5" disabled={create.isPending} data-testid="add-outbound-destination">
          {create.isPending ? "Adding…" : "Add destination"}
        </Button>
        {create.error != null && Object.keys(errors).length === 0 && (
          <div className="sm:col-span-4">
            <ErrorMessage title="The destination could not be added" error={create.error} />
          </div>
        )}
      </form>
    </Card>
  );
}

/** Deleting the tenant, apart from everyday actions, behind a confirmation that names what goes with it. */
function DangerZone({ tenant, pending, error, onDelete }: { tenant: string; pending: boolean; error: unknown; onDelete: () => void }) {
  const [open, setOpen] = useState(false);
  return (
    <Card title="Delete this tenant" data-testid="tenant-danger-zone">
      <div className="flex flex-wrap items-center justify-between gap-3">
        <p className="text-sm text-zinc-700 dark:text-zinc-300">
          Deletes the tenant and all its destinations. Its portal links stop working. This cannot be undone.
        </p>
        <Button variant="danger" onClick={() => setOpen(true)} disabled={pending}>
          Delete tenant
        </Button>
      </div>
      {error != null && (
        <div className="mt-3">
          <ErrorMessage title="The tenant could not be deleted" error={error} />
        </div>
      )}
      <ConfirmDialog
        open={open}
        title={`Delete tenant “${tenant}”?`}
        confirmLabel="Delete tenant"
        danger
        pending={pending}
        onConfirm={() => (setOpen(false), onDelete())}
        onCancel={() => setOpen(false)}
      >
        The tenant and all its destinations are deleted; events are no longer delivered to them.
      </ConfirmDialog>
    </Card>
  );
}
