import type { Metadata } from "next";
import { ConnectionForm } from "@/components/dashboard/pages/ConnectionForm";
import { requireUser } from "@/lib/dashboard/require-user";

export const metadata: Metadata = { title: "New connection" };

export default async function Page() {
  await requireUser();
  return <ConnectionForm />;
}
