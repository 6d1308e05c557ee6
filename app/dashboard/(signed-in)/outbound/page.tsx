import type { Metadata } from "next";
import { Tenants } from "@/components/dashboard/pages/Tenants";
import { OperatorsOnly } from "@/components/dashboard/OperatorsOnly";
import { requireUser } from "@/lib/dashboard/require-user";

export const metadata: Metadata = { title: "Outbound" };

export default async function Page() {
  if (!(await requireUser()).operator) return <OperatorsOnly title="Outbound" />;
  return <Tenants />;
}
