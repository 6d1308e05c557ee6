"use client";

import { useQuery } from "@tanstack/react-query";
import { api } from "@/components/dashboard/api";
import { when } from "@/components/dashboard/forms";
import { Badge, type Tone } from "@/components/ui/Badge";
import { Card } from "@/components/ui/Card";
import { ErrorMessage } from "@/components/ui/EmptyState";
import { formatBytes } from "@/components/ui/format";
import { PageHeader } from "@/components/ui/PageHeader";
import { Table, Td, Th } from "@/components/ui/Table";
import type { QueueFigures, SystemReport } from "@/lib/dashboard/system";

/** The operator-only report (docs/operations.md "System page"), refreshed every few seconds. */
const SYSTEM = "/dashboard/api/system";
const REFRESH_MS = 5_000;

/** "—", "12 s", "4 min 3 s", "2 h 5 min", "3 d 4 h". */
export function age(seconds: number | null): string {
  if (seconds === null) return "—";
  const s = Math.max(0, Math.floor(seconds));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`;
  if (s < 86_400) return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
  return `${Math.floor(s / 86_400)} d ${Math.floor((s % 86_400) / 3600)} h`;
}

const STATE_TONES: Record<string, Tone> = {
  up: "success",
  disabled: "neutral",
  external: "neutral",
  starting: "info",
  restarting: "warning",
  stalled: "warning",
};

/** The System page: queues, processes, database size, retention. */
export function System() {
  const report = useQuery({ queryKey: ["system"], queryFn: () => api<SystemReport>(SYSTEM), refetchInterval: REFRESH_MS });
  const r = report.data;
  const queues: [string, string, QueueFigures][] = r
    ? [
        ["Gateway", "Events to deliver", r.queues.gateway.events],
        ["Gateway", "Requests to fan out", r.queues.gateway.fanout],
        ["Gateway", "Worker jobs (retries, delays)", r.queues.gateway.jobs],
        ["Outbound", "Deliveries pending", r.queues.outbound.deliveries],
      ]
    : [];

  return (
    <>
      <PageHeader
        title="System"
        description="What is waiting, what is running, and how big the database is. Refreshed every 5 seconds."
        actions={r && <span className="text-xs text-zinc-600 dark:text-zinc-400">as of {when(r.generated_at)}</span>}
      />
      {report.error && (
        <div className="mb-4">
          <ErrorMessage title="The system report could not be loaded" error={report.error} onRetry={() => report.refetch()} />
        </div>
      )}
      {!r ? (
        !report.error && <div role="status" className="h-40 animate-pulse rounded-lg bg-zinc-100 dark:bg-zinc-800/60" aria-label="Loading" />
      ) : (
        <div className="grid grid-cols-1 gap-4 lg:grid-cols-2">
          <Card title="Queues" bodyClassName="p-0" className="lg:col-span-2">
            <Table caption="Queues">
              <thead>
                <tr>
                  <Th>Product</Th>
                  <Th>Queue</Th>
                  <Th className="text-right">Pending</Th>
                  <Th className="text-right">Due now</Th>
                  <Th className="text-right">Oldest due waits</Th>
                </tr>
              </thead>
              <tbody>
                {queues.map(([product, label, q]) => (
                  <tr key={label} data-testid="queue-row">
                    <Td>{product}</Td>
                    <Td>{label}</Td>
                    <Td className="text-right tabular-nums">{q.pending.toLocaleString()}</Td>
                    <Td className="text-right tabular-nums">{q.due.toLocaleString()}</Td>
                    <Td className="text-right whitespace-nowrap tabular-nums">{age(q.oldest_due_seconds)}</Td>
                  </tr>
                ))}
              </tbody>
            </Table>
          </Card>
          <Card
            title="Processes"
            bodyClassName="p-0"
            actions={
              <Badge tone={r.processes.status === "ok" ? "success" : "danger"} data-testid="system-status">
                {r.processes.status}
              </Badge>
            }
          >
            <Table caption="Processes">
              <thead>
                <tr>
                  <Th>Part</Th>
                  <Th>State</Th>
                  <Th className="text-right">Restarts</Th>
                  <Th>Last exit</Th>
                </tr>
              </thead>
              <tbody>
                {Object.entries(r.processes.parts).map(([name, part]) => (
                  <tr key={name} data-testid="part-row" data-part={name}>
                    <Td className="font-medium">
                      {name}
                      {part.pid ? <span className="ml-1 text-xs text-zinc-600 dark:text-zinc-400">pid {part.pid}</span> : null}
                    </Td>
                    <Td>
                      <Badge tone={STATE_TONES[part.state] ?? "danger"}>{part.state}</Badge>
                      {part.condition && <span className="ml-1 text-xs">{part.condition}</span>}
                    </Td>
                    <Td className="text-right tabular-nums">{part.restarts}</Td>
                    <Td className="text-xs">{part.last_exit ?? "—"}</Td>
                  </tr>
                ))}
              </tbody>
            </Table>
            <div className="border-t border-zinc-200 px-4 py-3 text-sm dark:border-zinc-800">
              <h3 className="mb-1 text-xs font-semibold text-zinc-700 dark:text-zinc-300">Worker processes connected to the database</h3>
              {r.processes.workers.length === 0 ? (
                <p className="text-zinc-600 dark:text-zinc-400" data-testid="no-workers">
                  None: no delivery worker is running.
                </p>
              ) : (
                <ul className="flex flex-col gap-1" data-testid="workers">
                  {r.processes.workers.map((w) => (
                    <li key={`${w.name}-${w.connected_at}`} className="flex flex-wrap gap-x-2 text-xs">
                      <code className="font-mono break-all">{w.name}</code>
                      <span className="text-zinc-600 dark:text-zinc-400">
                        since {when(w.connected_at)}
                        {w.address ? ` from ${w.address}` : ""}
                      </span>
                    </li>
                  ))}
                </ul>
              )}
            </div>
          </Card>
          <Card title="Retention">
            <p className="text-sm" data-testid="retention">
              {r.retention.keeps_forever
                ? "Everything is kept forever (RETENTION_DAYS=0)."
                : `Requests, events, attempts and outbound events and attempts are kept ${r.retention.days} whole UTC days (RETENTION_DAYS), then dropped a day's partition at a time.`}
            </p>
          </Card>
          <Card
            title="Database"
            bodyClassName="p-0"
            className="lg:col-span-2"
            meta={<span data-testid="database-size">{formatBytes(r.database.bytes)} in all</span>}
          >
            <Table caption="Largest tables and partitions">
              <thead>
                <tr>
                  <Th>Table or partition</Th>
                  <Th>Partition of</Th>
                  <Th className="text-right">Size</Th>
                </tr>
              </thead>
              <tbody>
                {r.database.largest.map((t) => (
                  <tr key={t.table} data-testid="table-row">
                    <Td className="font-mono text-xs break-all">{t.table}</Td>
                    <Td className="font-mono text-xs">{t.partition_of ?? "—"}</Td>
                    <Td className="text-right whitespace-nowrap tabular-nums">{formatBytes(t.bytes)}</Td>
                  </tr>
                ))}
              </tbody>
            </Table>
          </Card>
        </div>
      )}
    </>
  );
}
