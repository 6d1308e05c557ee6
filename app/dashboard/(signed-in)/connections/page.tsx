import type { Metadata } from "next";
import { ConnectionsList } from "@/components/dashboard/pages/ConnectionsList";
import { requireUser } from "@/lib/dashboard/require-user";

export const metadata: Metadata = { title: "Connections" };

export default async function Page() {
  await requireUser();
  return <ConnectionsList />;
}
