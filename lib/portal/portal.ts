/**
 * The tenant portal's session (docs/portal.md#how-it-is-built): the tenant JWT of a portal
 * `redirect_url` (`{PUBLIC_URL}/portal?token=…&theme=…`, tenants.ts portalFor) is exchanged for an
 * httpOnly, SameSite=Strict cookie (Secure when PUBLIC_URL is https) that the outbound API wrapper
 * (lib/outbound/http.ts) accepts as the tenant's credential when no Authorization header is sent.
 * Cookie-authenticated unsafe requests must pass the CSRF guard (lib/outbound/auth.ts portalCsrfAllowed).
 */
import { getConfig } from "@/lib/config";
import { TENANT_TOKEN_SECONDS } from "@/lib/outbound/auth";

/** The cookie holding the portal theme, `light` or `dark` (absent: follow the device). */
export const PORTAL_THEME_COOKIE = "hy_portal_theme";

export type PortalTheme = "light" | "dark";
export const asTheme = (v: string | null | undefined): PortalTheme | undefined => (v === "light" || v === "dark" ? v : undefined);

/** Attributes of the portal cookies: httpOnly, SameSite=Strict, path `/`, Secure on an https PUBLIC_URL; `maxAge` seconds. */
export function portalCookieOptions(maxAge = TENANT_TOKEN_SECONDS) {
  return { httpOnly: true, sameSite: "strict" as const, secure: getConfig().publicUrl.startsWith("https:"), path: "/", maxAge };
}
