import type { Metadata } from "next";
import { Overview } from "@/components/dashboard/Overview";
import { requireUser } from "@/lib/dashboard/require-user";

export const metadata: Metadata = { title: "Overview" };

export default async function OverviewPage() {
  await requireUser();
  return <Overview />;
}
