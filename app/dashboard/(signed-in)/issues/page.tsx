import type { Metadata } from "next";
import { IssuesList } from "@/components/dashboard/pages/IssuesList";
import { requireUser } from "@/lib/dashboard/require-user";

export const metadata: Metadata = { title: "Issues" };

export default async function Page() {
  await requireUser();
  return <IssuesList />;
}
