import type { Metadata } from "next";
import { Tenants } from "@/components/dashboard/pages/Tenants";
import { requireUser } from "@/lib/dashboard/require-user";

export const metadata: Metadata = { title: "Outbound" };

export default async function Page() {
  await requireUser();
  return <Tenants />;
}
