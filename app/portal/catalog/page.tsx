import type { Metadata } from "next";
import { Catalog } from "@/components/portal/Catalog";
import { SignedOut } from "@/components/portal/SignedOut";
import { portalSession } from "@/lib/portal/session";

export const metadata: Metadata = { title: "Event catalog" };

export default async function Page() {
  const session = await portalSession();
  if (!session.tenantId) return <SignedOut reason={session.reason === "missing" ? null : session.reason} organizationName={session.brand.organizationName} />;
  return <Catalog />;
}
