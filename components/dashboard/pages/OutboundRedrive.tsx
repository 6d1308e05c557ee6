"use client";
/** /dashboard/redrive (docs/dashboard.md): the operator redrives failed outbound deliveries of any tenant (docs/outbound.md "Bulk redrive"). */
import { api } from "@/components/dashboard/api";
import { OUTBOUND } from "@/components/dashboard/pages/Tenants";
import { RedrivePanel } from "@/components/outbound/RedrivePanel";
import { PageHeader } from "@/components/ui/PageHeader";

export function OutboundRedrive() {
  return (
    <>
      <PageHeader
        title="Outbound redrive"
        description="Send every outbound delivery whose last attempt failed once more, by tenant, destination, topic, status, time and attempts: plan, run, watch, cancel."
      />
      <RedrivePanel call={api} base={OUTBOUND} tenantField />
    </>
  );
}
