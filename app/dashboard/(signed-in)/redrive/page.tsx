import type { Metadata } from "next";
import { OutboundRedrive } from "@/components/dashboard/pages/OutboundRedrive";
import { OperatorsOnly } from "@/components/dashboard/OperatorsOnly";
import { requireUser } from "@/lib/dashboard/require-user";

export const metadata: Metadata = { title: "Outbound redrive" };

export default async function Page() {
  if (!(await requireUser()).operator) return <OperatorsOnly title="Outbound redrive" />;
  return <OutboundRedrive />;
}
