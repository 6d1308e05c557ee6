"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useMemo, useState } from "react";
import { api, qs } from "@/components/dashboard/api";
import { fieldErrors, listField, plural, when } from "@/components/dashboard/forms";
import { OUTBOUND, type OutboundPage, type Tenant } from "@/components/dashboard/pages/Tenants";
import { EnableDeleteActions, QueryView } from "@/components/dashboard/pages/QueryView";
import { Badge } from "@/components/ui/Badge";
import { Button, ButtonLink } from "@/components/ui/Button";
import { Card } from "@/components/ui/Card";
import { type ChartPoint, TimeChart } from "@/components/ui/Chart";
import { useConfirm } from "@/components/ui/ConfirmDialog";
import { EmptyState, ErrorMessage } from "@/components/ui/EmptyState";
import { Field, Input, Select } from "@/components/ui/Field";
import { PageHeader } from "@/components/ui/PageHeader";
import { Table, Td, Th } from "@/components/ui/Table";
import type { toDestination } from "@/lib/outbound/destinations";
import type { toEvent } from "@/lib/outbound/events";

/* The outbound API's models, from the server's own types (type-only imports). */
type Destination = ReturnType<typeof toDestination>;
type OEvent = ReturnType<typeof toEvent>;
type OAttempt = {
  id: string;
  event_id: string;
  destination_id: string;
  status: "success" | "failed";
  code: string | null;
  attempt_number: number;
  manual: boolean;
  time: string;
};
type MetricsRow = { time_bucket: string; metrics: Record<string, number | null> };

const target = (d: Destination) => d.config.url ?? d.config.source_id ?? d.config.server_url ?? "—";

/** One outbound tenant: its portal, delivery chart, destinations, events and attempts (with retry). */
export function TenantDetail({ tenant }: { tenant: string }) {
  const router = useRouter();
  const client = useQueryClient();
  const base = `${OUTBOUND}/tenants/${encodeURIComponent(tenant)}`;
  const t = useQuery({ queryKey: ["tenant", tenant], queryFn: () => api<Tenant>(base) });
  const [portalError, setPortalError] = useState<unknown>(null);
  const { dialog, confirm } = useConfirm();
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
      {dialog}
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
            <Button
              variant="danger"
              disabled={remove.isPending}
              onClick={() =>
                confirm({ title: `Delete tenant “${tenant}” and all its destinations?`, confirmLabel: "Delete tenant", onConfirm: () => remove.mutate() })
              }
            >
              Delete tenant
            </Button>
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
      {remove.error && (
        <div className="mb-4">
          <ErrorMessage title="The tenant could not be deleted" error={remove.error} />
        </div>
      )}
      <div className="grid grid-cols-1 gap-4">
        <DeliveryChart tenant={tenant} />
        <Destinations tenant={tenant} base={base} />
        <div className="grid grid-cols-1 gap-4">
          <Events tenant={tenant} />
          <Attempts tenant={tenant} />
        </div>
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
        <div className="h-[200px] animate-pulse rounded bg-zinc-100 dark:bg-zinc-800/60" aria-label="Loading" />
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

function Destinations({ tenant, base }: { tenant: string; base: string }) {
  const client = useQueryClient();
  const list = useQuery({ queryKey: ["tenant-destinations", tenant], queryFn: () => api<Destination[]>(`${base}/destinations`) });
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
                  <Td>{d.disabled_at ? <Badge>Disabled</Badge> : <Badge tone="success">Enabled</Badge>}</Td>
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

function Events({ tenant }: { tenant: string }) {
  const path = `${OUTBOUND}/events${qs({ tenant_id: tenant, limit: 20 })}`;
  const list = useQuery({ queryKey: ["tenant-events", path], queryFn: () => api<OutboundPage<OEvent>>(path), refetchInterval: 15_000 });
  return (
    <Card title="Latest events" bodyClassName="p-0!">
      <QueryView
        query={list}
        what="Events"
        inset
        height="h-16"
        isEmpty={(d) => d.models.length === 0}
        empty={<EmptyState title="No events yet">Publish one: POST /outbound/api/v1/publish with this tenant_id.</EmptyState>}
      >
        {(d) => (
          <Table caption="Latest events">
            <thead>
              <tr>
                <Th>Event</Th>
                <Th>Topic</Th>
                <Th>Matched</Th>
                <Th>Time</Th>
              </tr>
            </thead>
            <tbody>
              {d.models.map((e) => (
                <tr key={e.id} data-testid="tenant-event">
                  <Td className="font-mono text-xs">{e.id}</Td>
                  <Td className="text-xs">{e.topic || "—"}</Td>
                  <Td className="text-xs">{e.matched_destination_ids?.length ?? 0}</Td>
                  <Td className="whitespace-nowrap text-xs">{when(e.time)}</Td>
                </tr>
              ))}
            </tbody>
          </Table>
        )}
      </QueryView>
    </Card>
  );
}

function Attempts({ tenant }: { tenant: string }) {
  const client = useQueryClient();
  const path = `${OUTBOUND}/attempts${qs({ tenant_id: tenant, limit: 20 })}`;
  const list = useQuery({ queryKey: ["tenant-attempts", path], queryFn: () => api<OutboundPage<OAttempt>>(path), refetchInterval: 15_000 });
  const retry = useMutation({
    mutationFn: (a: OAttempt) => api(`${OUTBOUND}/retry`, { method: "POST", body: { event_id: a.event_id, destination_id: a.destination_id } }),
    // The new attempt is made by the delivery worker a moment later.
    onSuccess: () => setTimeout(() => ["tenant-attempts", "tenant-metrics"].forEach((k) => void client.invalidateQueries({ queryKey: [k] })), 1000),
  });
  return (
    <Card title="Latest attempts" bodyClassName="p-0!">
      {retry.error && (
        <div className="p-4">
          <ErrorMessage title="The retry was refused" error={retry.error} />
        </div>
      )}
      {retry.isSuccess && (
        <p role="status" className="px-4 pt-3 text-sm text-emerald-700 dark:text-emerald-300">
          Retry queued.
        </p>
      )}
      <QueryView
        query={list}
        what="Attempts"
        inset
        height="h-16"
        isEmpty={(d) => d.models.length === 0}
        empty={<EmptyState title="No attempts yet">Attempts appear once an event matches one of the destinations above.</EmptyState>}
      >
        {(d) => (
          <Table caption="Latest attempts">
            <thead>
              <tr>
                <Th>Status</Th>
                <Th>Event</Th>
                <Th>#</Th>
                <Th>Time</Th>
                <Th>
                  <span className="sr-only">Actions</span>
                </Th>
              </tr>
            </thead>
            <tbody>
              {d.models.map((a) => (
                <tr key={a.id} data-testid="tenant-attempt" data-status={a.status}>
                  <Td>
                    <Badge className="whitespace-nowrap" tone={a.status === "success" ? "success" : "danger"}>
                      {a.status}
                      {a.code ? ` · ${a.code}` : ""}
                    </Badge>
                  </Td>
                  <Td className="font-mono text-xs">{a.event_id}</Td>
                  <Td className="text-xs">
                    {a.attempt_number}
                    {a.manual ? " (manual)" : ""}
                  </Td>
                  <Td className="whitespace-nowrap text-xs">{when(a.time)}</Td>
                  <Td>
                    <Button size="sm" disabled={retry.isPending} onClick={() => retry.mutate(a)} aria-label={`Retry event ${a.event_id}`}>
                      Retry
                    </Button>
                  </Td>
                </tr>
              ))}
            </tbody>
          </Table>
        )}
      </QueryView>
    </Card>
  );
}
