import type { Metadata } from "next";
import { TenantDetail } from "@/components/dashboard/pages/TenantDetail";
import { requireUser } from "@/lib/dashboard/require-user";

export const metadata: Metadata = { title: "Tenant" };

export default async function Page({ params }: { params: Promise<{ tenant: string }> }) {
  await requireUser();
  return <TenantDetail tenant={decodeURIComponent((await params).tenant)} />;
}
