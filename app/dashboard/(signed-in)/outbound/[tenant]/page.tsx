import type { Metadata } from "next";
import { TenantDetail } from "@/components/dashboard/pages/TenantDetail";
import { OperatorsOnly } from "@/components/dashboard/OperatorsOnly";
import { requireUser } from "@/lib/dashboard/require-user";

export const metadata: Metadata = { title: "Tenant" };

export default async function Page({ params }: { params: Promise<{ tenant: string }> }) {
  if (!(await requireUser()).operator) return <OperatorsOnly title="Tenant" />;
  return <TenantDetail tenant={decodeURIComponent((await params).tenant)} />;
}
