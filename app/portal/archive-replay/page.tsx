import type { Metadata } from "next";
import { Redrive } from "@/components/portal/Redrive";
import { SignedOut } from "@/components/portal/SignedOut";
import { portalSession } from "@/lib/portal/session";

export const metadata: Metadata = { title: "Replay from archive" };

export default async function Page() {
  const session = await portalSession();
  if (!session.tenantId) return <SignedOut reason={session.reason === "missing" ? null : session.reason} organizationName={session.brand.organizationName} />;
  return <Redrive kind="archive" />;
}
