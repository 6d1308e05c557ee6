import type { Metadata } from "next";
import { OperatorsOnly } from "@/components/dashboard/OperatorsOnly";
import { Teams } from "@/components/dashboard/pages/Teams";
import { requireUser } from "@/lib/dashboard/require-user";

export const metadata: Metadata = { title: "Teams" };

export default async function Page() {
  const user = await requireUser();
  return user.operator ? <Teams /> : <OperatorsOnly title="Teams" />;
}
