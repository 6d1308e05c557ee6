import type { Metadata } from "next";
import { OperatorsOnly } from "@/components/dashboard/OperatorsOnly";
import { System } from "@/components/dashboard/pages/System";
import { requireUser } from "@/lib/dashboard/require-user";

export const metadata: Metadata = { title: "System" };

export default async function Page() {
  const user = await requireUser();
  return user.operator ? <System /> : <OperatorsOnly title="System" />;
}
