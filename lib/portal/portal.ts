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

/**
 * Attributes of the portal cookies: httpOnly, SameSite=Strict, path `/`, Secure on an https PUBLIC_URL; `maxAge` seconds.
 * `embedded` (the exchange ran inside a frame the operator allows, {@link embeddedRequest}): a partitioned
 * cookie instead, `SameSite=None; Secure; Partitioned` (CHIPS): the browser sends it only inside frames whose
 * top-level page is on the site that framed the exchange, so the portal works embedded cross-site while no
 * other site's pages ever carry it (docs/portal.md "Embedding the portal").
 */
export function portalCookieOptions(maxAge = TENANT_TOKEN_SECONDS, embedded = false) {
  if (embedded) return { httpOnly: true, sameSite: "none" as const, secure: true, partitioned: true, path: "/", maxAge };
  return { httpOnly: true, sameSite: "strict" as const, secure: getConfig().publicUrl.startsWith("https:"), path: "/", maxAge };
}

/**
 * Whether request headers `headers` are of a navigation inside a frame (`Sec-Fetch-Dest: iframe` or `frame`)
 * while PORTAL_FRAME_ANCESTORS allows embedding: then the session cookie is the partitioned one. Frames
 * from origins not listed never get here (the browser refuses them by the CSP's frame-ancestors).
 */
export function embeddedRequest(headers: Headers): boolean {
  const dest = headers.get("sec-fetch-dest");
  return (dest === "iframe" || dest === "frame") && getConfig().portal.frameAncestors.length > 0;
}
