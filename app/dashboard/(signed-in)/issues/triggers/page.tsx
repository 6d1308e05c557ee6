import type { Metadata } from "next";
import { IssueTriggers } from "@/components/dashboard/pages/IssueTriggers";
import { requireUser } from "@/lib/dashboard/require-user";

export const metadata: Metadata = { title: "Issue triggers and notifications" };

export default async function Page() {
  await requireUser();
  return <IssueTriggers />;
}
