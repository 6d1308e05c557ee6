import { getConfig } from "@/lib/config";
import { userRoute } from "@/lib/dashboard/http";
import { ownTeam } from "@/lib/dashboard/teams-admin";
import { getManagedConfig } from "@/lib/outbound/settings";

export const dynamic = "force-dynamic";

/**
 * The Settings page (docs/dashboard.md "Settings"): the signed-in user's team with its keys and users; for
 * an operator also the outbound service's settings and the portal's branding, read-only (they change with
 * `PATCH /outbound/…/config` and the PORTAL_* settings).
 */
export const GET = userRoute(async ({ user }) => {
  const team = await ownTeam(user.teamId);
  if (!user.operator) return { team, operator: false };
  const { organizationName, brandColor, logoUrl } = getConfig().portal;
  return {
    team,
    operator: true,
    outbound: await getManagedConfig(),
    portal: { organization_name: organizationName, brand_color: brandColor, logo_url: logoUrl ?? null },
  };
});
