import type { Metadata } from "next";
import { TenantArchiveReplay } from "@/components/dashboard/pages/TenantArchiveReplay";
import { OperatorsOnly } from "@/components/dashboard/OperatorsOnly";
import { requireUser } from "@/lib/dashboard/require-user";

export const metadata: Metadata = { title: "Replay from archive" };

export default async function Page({ params }: { params: Promise<{ tenant: string }> }) {
  if (!(await requireUser()).operator) return <OperatorsOnly title="Replay from archive" />;
  return <TenantArchiveReplay tenant={decodeURIComponent((await params).tenant)} />;
}
