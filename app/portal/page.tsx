import { redirect } from "next/navigation";
import { DestinationList } from "@/components/portal/DestinationList";
import { SignedOut } from "@/components/portal/SignedOut";
import { portalSession } from "@/lib/portal/session";

/**
 * `/portal`: with `?token=` (the outbound portal redirect_url) the token goes to the exchange
 * (app/portal/enter/route.ts), which sets the session cookie and comes back here without it. Otherwise
 * the tenant's destinations and delivery chart, or the signed-out page.
 */
export default async function PortalHome({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const params = await searchParams;
  if (typeof params.token === "string") {
    const q = new URLSearchParams({ token: params.token });
    if (typeof params.theme === "string") q.set("theme", params.theme);
    redirect(`/portal/enter?${q}`);
  }
  const session = await portalSession();
  if (!session.tenantId) return <SignedOut reason={session.reason === "missing" ? null : session.reason} organizationName={session.brand.organizationName} />;
  return <DestinationList />;
}
