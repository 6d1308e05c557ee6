import type { Metadata } from "next";
import { DestinationDetail } from "@/components/portal/DestinationDetail";
import { SignedOut } from "@/components/portal/SignedOut";
import { portalSession } from "@/lib/portal/session";

export const metadata: Metadata = { title: "Destination" };

export default async function DestinationPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const session = await portalSession();
  if (!session.tenantId) return <SignedOut reason={session.reason === "missing" ? null : session.reason} organizationName={session.brand.organizationName} />;
  return <DestinationDetail id={id} />;
}
