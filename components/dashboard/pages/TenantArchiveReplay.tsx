"use client";
/**
 * /dashboard/outbound/[tenant]/archive-replay (docs/dashboard.md "Outbound"): the operator replays a
 * tenant's archived outbound events to one of its destinations (docs/outbound.md "Replay from the
 * archive") and sees the tenant's past replays.
 */
import { useQuery } from "@tanstack/react-query";
import { api } from "@/components/dashboard/api";
import { OUTBOUND } from "@/components/dashboard/pages/Tenants";
import { RedrivePanel } from "@/components/outbound/RedrivePanel";
import { ButtonLink } from "@/components/ui/Button";
import { PageHeader } from "@/components/ui/PageHeader";
import type { toDestination } from "@/lib/outbound/destinations";

type Destination = ReturnType<typeof toDestination>;

export function TenantArchiveReplay({ tenant }: { tenant: string }) {
  const destinations = useQuery({
    queryKey: ["tenant-destinations", tenant, "replay"],
    queryFn: () => api<Destination[]>(`${OUTBOUND}/tenants/${encodeURIComponent(tenant)}/destinations`),
  });
  return (
    <>
      <PageHeader
        title={`Replay from archive: ${tenant}`}
        description="Republish the tenant's archived events of a time range (days retention archived before dropping them) to one of its destinations, each as a new event marked as a replay: plan, run, watch, cancel."
        actions={
          <ButtonLink href={`/dashboard/outbound/${encodeURIComponent(tenant)}`} variant="ghost">
            Back to the tenant
          </ButtonLink>
        }
      />
      <RedrivePanel
        call={api}
        base={OUTBOUND}
        kind="archive"
        tenant={tenant}
        destinations={(destinations.data ?? []).map((d) => ({ id: d.id, label: String(d.config.url ?? d.config.source_id ?? d.config.server_url ?? d.id) }))}
      />
    </>
  );
}
