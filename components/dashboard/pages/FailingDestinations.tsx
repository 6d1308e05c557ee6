"use client";
/**
 * "Which customers are failing?" (docs/dashboard.md "Outbound"): the destinations of every tenant with failed
 * attempts in the last day, most failures first (`GET /destination-health`), each linked to its tenant.
 */
import Link from "next/link";
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { api, qs } from "@/components/dashboard/api";
import { QueryView } from "@/components/dashboard/pages/QueryView";
import { Badge } from "@/components/ui/Badge";
import { Button } from "@/components/ui/Button";
import { Card } from "@/components/ui/Card";
import { EmptyState } from "@/components/ui/EmptyState";
import { type Health, HealthBadge, HealthLine } from "@/components/ui/HealthBadge";
import { Table, Td, Th } from "@/components/ui/Table";

type Failing = {
  tenant_id: string;
  destination_id: string;
  destination: { type: string; target: string; disabled_at: string | null } | null;
  health: Health;
};

/** The cross-tenant failures card: 10 rows, "Show more" for up to 100. */
export function FailingDestinations() {
  const [limit, setLimit] = useState(10);
  const path = `/outbound/api/v1/destination-health${qs({ limit })}`;
  const list = useQuery({
    queryKey: ["destination-health", path],
    queryFn: () => api<{ models: Failing[]; window_hours: number }>(path),
    refetchInterval: 30_000,
    placeholderData: (p) => p,
  });
  return (
    <Card title="Failing destinations, last 24 hours" bodyClassName="p-0!" data-testid="failing-destinations">
      <QueryView
        query={list}
        what="Failing destinations"
        inset
        isEmpty={(d) => d.models.length === 0}
        empty={<EmptyState title="No failures">No destination of any tenant had a failed attempt in the last 24 hours.</EmptyState>}
      >
        {(d) => (
          <>
            <Table caption="Failing destinations, last 24 hours">
              <thead>
                <tr>
                  <Th>Tenant</Th>
                  <Th>Destination</Th>
                  <Th>Health</Th>
                </tr>
              </thead>
              <tbody>
                {d.models.map((m) => (
                  <tr key={m.destination_id} data-testid="failing-destination" data-tenant={m.tenant_id}>
                    <Td className="min-w-32">
                      <Link
                        href={`/dashboard/outbound/${encodeURIComponent(m.tenant_id)}`}
                        className="font-mono font-medium text-indigo-700 hover:underline dark:text-indigo-300"
                      >
                        {m.tenant_id}
                      </Link>
                    </Td>
                    <Td className="max-w-80">
                      <code className="block truncate text-xs" title={m.destination?.target}>
                        {m.destination?.target || m.destination_id}
                      </code>
                      <span className="text-xs text-zinc-600 dark:text-zinc-400">
                        {m.destination ? m.destination.type : "deleted"}
                        {m.destination?.disabled_at && (
                          <>
                            {" "}
                            <Badge>Disabled</Badge>
                          </>
                        )}
                      </span>
                    </Td>
                    <Td className="min-w-48">
                      <HealthBadge health={m.health} />
                      <HealthLine health={m.health} className="mt-1 block text-xs text-zinc-600 dark:text-zinc-400" />
                    </Td>
                  </tr>
                ))}
              </tbody>
            </Table>
            {d.models.length >= limit && limit < 100 && (
              <div className="border-t border-zinc-200 p-3 dark:border-zinc-800">
                <Button size="sm" onClick={() => setLimit(100)}>
                  Show more
                </Button>
              </div>
            )}
          </>
        )}
      </QueryView>
    </Card>
  );
}
