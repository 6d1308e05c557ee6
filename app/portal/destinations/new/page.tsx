import type { Metadata } from "next";
import { NewDestination } from "@/components/portal/NewDestination";
import { SignedOut } from "@/components/portal/SignedOut";
import { portalSession } from "@/lib/portal/session";

export const metadata: Metadata = { title: "Add a destination" };

export default async function NewDestinationPage() {
  const session = await portalSession();
  if (!session.tenantId) return <SignedOut reason={session.reason === "missing" ? null : session.reason} organizationName={session.brand.organizationName} />;
  return <NewDestination />;
}
