import type { Metadata } from "next";
import { IssueDetail } from "@/components/dashboard/pages/IssueDetail";
import { requireUser } from "@/lib/dashboard/require-user";

export const metadata: Metadata = { title: "Issue" };

export default async function Page({ params }: { params: Promise<{ id: string }> }) {
  await requireUser();
  return <IssueDetail id={(await params).id} />;
}
