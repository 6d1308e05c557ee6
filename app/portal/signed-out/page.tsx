import type { Metadata } from "next";
import { SignedOut } from "@/components/portal/SignedOut";
import { portalSession } from "@/lib/portal/session";

export const metadata: Metadata = { title: "Signed out" };

/** Where a bad or expired portal link lands (app/portal/enter/route.ts): says why, and what to do. */
export default async function SignedOutPage({ searchParams }: { searchParams: Promise<{ reason?: string }> }) {
  const { reason } = await searchParams;
  const { brand } = await portalSession();
  return <SignedOut reason={reason === "expired" || reason === "invalid" ? reason : null} organizationName={brand.organizationName} />;
}
