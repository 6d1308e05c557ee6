/**
 * The tenant portal's session (issue 14, portal; design "UIs": `/portal`): the tenant JWT of a portal
 * `redirect_url` (`{PUBLIC_URL}/portal?token=…&theme=…`, tenants.ts portalFor) is exchanged for an
 * httpOnly, SameSite=Strict cookie (Secure when PUBLIC_URL is https) that the outbound API wrapper
 * (lib/http/outbound.ts) accepts as the tenant's credential when no Authorization header is sent.
 * Cookie-authenticated unsafe requests must pass the CSRF guard ({@link portalCsrfAllowed}).
 */
import { getConfig } from "@/lib/config";
import { TENANT_TOKEN_SECONDS } from "@/lib/outbound/auth";

/** The cookie holding the tenant JWT (httpOnly). */
export const PORTAL_COOKIE = "hy_portal";
/** The cookie holding the portal theme, `light` or `dark` (absent: follow the device). */
export const PORTAL_THEME_COOKIE = "hy_portal_theme";
/** Header the portal's own fetches send on unsafe methods; a cross-site form cannot send it. */
export const PORTAL_CSRF_HEADER = "x-hookyard-portal";

export type PortalTheme = "light" | "dark";
export const asTheme = (v: string | null | undefined): PortalTheme | undefined => (v === "light" || v === "dark" ? v : undefined);

/** Attributes of the portal cookies: httpOnly, SameSite=Strict, path `/`, Secure on an https PUBLIC_URL; `maxAge` seconds. */
export function portalCookieOptions(maxAge = TENANT_TOKEN_SECONDS) {
  return { httpOnly: true, sameSite: "strict" as const, secure: getConfig().publicUrl.startsWith("https:"), path: "/", maxAge };
}

/**
 * CSRF guard of a cookie-authenticated request: safe methods (GET, HEAD) pass; an unsafe one passes only
 * with the {@link PORTAL_CSRF_HEADER} header (which a cross-site form cannot send and a cross-site fetch
 * cannot send without a CORS preflight this server never grants) and, when an `Origin` is sent, only
 * from PUBLIC_URL's origin.
 */
export function portalCsrfAllowed(method: string, origin: string | null | undefined, csrfHeader: string | null | undefined): boolean {
  if (method === "GET" || method === "HEAD") return true;
  if (!csrfHeader) return false;
  if (origin && origin !== new URL(getConfig().publicUrl).origin) return false;
  return true;
}
