"use client";
/** `/portal/redrive`: the tenant redrives its own failed deliveries (docs/portal.md "What a tenant can do"). */
import { RedrivePanel } from "@/components/outbound/RedrivePanel";
import { api, useDestinations } from "@/components/portal/api";
import { BackLink } from "@/components/ui/Button";

export function Redrive() {
  const destinations = useDestinations();
  return (
    <div className="space-y-6">
      <BackLink href="/portal">All destinations</BackLink>
      <div>
        <h1 className="text-2xl font-semibold tracking-tight">Redrive failed deliveries</h1>
        <p className="mt-1 text-sm text-zinc-600 dark:text-zinc-400">
          Send every event whose last delivery attempt failed once more, for example after your endpoint was down. Plan first: you see how many deliveries it
          covers.
        </p>
      </div>
      <RedrivePanel call={api} base="" destinations={(destinations.data ?? []).map((d) => ({ id: d.id, label: d.target || d.id }))} />
    </div>
  );
}
