import { cache } from "react";
import { headers } from "next/headers";
import { getConfig } from "@/lib/config";
import { parseCookies } from "@/lib/http/cookies";
import { PORTAL_COOKIE, verifyTenantToken } from "@/lib/outbound/auth";
import { asTheme, PORTAL_THEME_COOKIE, type PortalTheme } from "@/lib/portal/portal";

/** What a portal page needs from the request: the tenant of the session cookie (or why there is none), the theme and the branding. */
type PortalSession = {
  tenantId: string | null;
  reason: "missing" | "expired" | "invalid" | "unknown_tenant" | null;
  theme: PortalTheme | undefined;
  brand: { organizationName: string; brandColor: string; brandForeground: string; logoUrl: string | undefined };
};

/** `#rrggbb` or `#rgb` → whether black text reads better than white on it (WCAG relative luminance). */
function prefersDarkText(hex: string): boolean {
  const h =
    hex.length === 4
      ? hex
          .slice(1)
          .split("")
          .map((c) => c + c)
          .join("")
      : hex.slice(1);
  const [r, g, b] = [0, 2, 4].map((i) => {
    const c = parseInt(h.slice(i, i + 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  const l = 0.2126 * r + 0.7152 * g + 0.0722 * b;
  return (l + 0.05) / 0.05 > 1.05 / (l + 0.05);
}

/** The portal session of this request (server components only; read once per request; cookies read by lib/http/cookies.ts). */
export const portalSession = cache(async (): Promise<PortalSession> => {
  const jar = parseCookies((await headers()).get("cookie"));
  const token = jar.get(PORTAL_COOKIE) || undefined;
  const verified = token ? await verifyTenantToken(token) : ({ error: "missing" } as const);
  const { organizationName, brandColor, logoUrl } = getConfig().portal;
  return {
    tenantId: "tenantId" in verified ? verified.tenantId : null,
    reason: "error" in verified ? verified.error : null,
    theme: asTheme(jar.get(PORTAL_THEME_COOKIE)),
    brand: { organizationName, brandColor, brandForeground: prefersDarkText(brandColor) ? "#000000" : "#ffffff", logoUrl },
  };
});
