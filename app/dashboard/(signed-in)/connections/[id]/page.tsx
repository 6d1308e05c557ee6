import type { Metadata } from "next";
import { ConnectionForm } from "@/components/dashboard/pages/ConnectionForm";
import { requireUser } from "@/lib/dashboard/require-user";

export const metadata: Metadata = { title: "Connection" };

export default async function Page({ params }: { params: Promise<{ id: string }> }) {
  await requireUser();
  return <ConnectionForm id={(await params).id} />;
}
