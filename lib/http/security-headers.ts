/**
 * Security headers of every answer (docs/security-headers.md). Two kinds of answer:
 *   - API and data answers (ingestion, the gateway, outbound and console APIs, health, static files, errors):
 *     {@link apiSecurityHeaders}, set by server.ts on every response before anything else writes;
 *   - pages (console, inspect, dashboard, portal): the same headers, with a per-request nonce-based
 *     Content-Security-Policy from {@link pageSecurityHeaders}, set by proxy.ts, which overrides the API
 *     policy server.ts put there first.
 * Headers are additive: no answer's spec-fixed header (Location, Retry-After, CORS, Content-Type) changes.
 */
import { getConfig } from "@/lib/config";

/**
 * The policy of every answer that is not a page: nothing may load from it, run in it or frame it. A
 * console test URL's configured response may be `text/html`: under this policy it cannot run script, load
 * anything, submit a form or be framed on Hookyard's origin.
 */
export const API_CSP = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/** The referrer policy of pages outside the portal: full URL to our own origin, only the origin elsewhere. */
const PAGE_REFERRER_POLICY = "strict-origin-when-cross-origin";
/** The referrer policy of the portal and of every API answer: a portal token or capability URL never leaves in Referer. */
const NO_REFERRER = "no-referrer";
/** HSTS value when PUBLIC_URL is https (one year; subdomains included). */
export const HSTS = "max-age=31536000; includeSubDomains";

/** Which policy a page path gets: the portal may be framed by the operator's origins; nothing else may. */
type PageSurface = "portal" | "page";

/** `portal` for `/portal` and everything under it, else `page`. `pathname` has no query. */
export function pageSurfaceOf(pathname: string): PageSurface {
  return pathname === "/portal" || pathname.startsWith("/portal/") ? "portal" : "page";
}

/** Headers every answer carries, whatever its kind: nosniff, and HSTS when PUBLIC_URL is https. */
function commonHeaders(): Record<string, string> {
  const out: Record<string, string> = { "x-content-type-options": "nosniff" };
  if (getConfig().publicUrl.startsWith("https:")) out["strict-transport-security"] = HSTS;
  return out;
}

let apiHeaders: Record<string, string> | undefined;

/**
 * The headers of an API or data answer: `Content-Security-Policy` {@link API_CSP}, `X-Content-Type-Options:
 * nosniff`, `Referrer-Policy: no-referrer`, and `Strict-Transport-Security` when PUBLIC_URL is https.
 * The same object every call (settings are read once): do not modify it.
 */
export function apiSecurityHeaders(): Readonly<Record<string, string>> {
  apiHeaders ??= { ...commonHeaders(), "content-security-policy": API_CSP, "referrer-policy": NO_REFERRER };
  return apiHeaders;
}

/** The origin of `url`, or undefined when it has none (or is not a URL). */
function originOf(url: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    const origin = new URL(url).origin;
    return origin === "null" ? undefined : origin;
  } catch {
    return undefined;
  }
}

/**
 * The Content-Security-Policy of a page rendered with `nonce` (base64, fresh per request).
 * - script-src: only scripts carrying the nonce (Next.js puts it on its own scripts when this policy is on
 *   the request), and what they load ('strict-dynamic'); `'unsafe-eval'` in development only (React's
 *   dev tools need it).
 * - style-src 'self' 'unsafe-inline': Tailwind's CSS is a file, but CodeMirror, recharts, the portal's
 *   brand variables and Next.js's own route announcer set inline `style` attributes, which a nonce cannot
 *   allow. Inline style cannot run script, so this keeps the policy's protection against script injection.
 * - img-src: our own images, `data:` (the portal's type icons are CSS masks of data: SVGs), `blob:`, and
 *   on the portal the origin of PORTAL_LOGO_URL.
 * - connect-src 'self' (the APIs and live streams are same-origin; dev adds the HMR websocket).
 * - frame-ancestors: 'none', or on the portal the origins of PORTAL_FRAME_ANCESTORS.
 */
export function pageCsp(nonce: string, surface: PageSurface): string {
  const config = getConfig();
  const dev = config.nodeEnv === "development";
  const logo = surface === "portal" ? originOf(config.portal.logoUrl) : undefined;
  const ancestors = surface === "portal" && config.portal.frameAncestors.length ? config.portal.frameAncestors.join(" ") : "'none'";
  const directives = [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${dev ? " 'unsafe-eval'" : ""}`,
    "style-src 'self' 'unsafe-inline'",
    `img-src 'self' data: blob:${logo ? ` ${logo}` : ""}`,
    "font-src 'self' data:",
    `connect-src 'self'${dev ? " ws: wss:" : ""}`,
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    `frame-ancestors ${ancestors}`,
  ];
  if (config.publicUrl.startsWith("https:")) directives.push("upgrade-insecure-requests");
  return directives.join("; ");
}

/**
 * The headers of a page answer on `surface` rendered with `nonce`: {@link pageCsp}, nosniff, HSTS when
 * PUBLIC_URL is https, and `Referrer-Policy` ({@link NO_REFERRER} on the portal, whose entry URL carries
 * the tenant token; {@link PAGE_REFERRER_POLICY} elsewhere, so the dashboard's same-origin checks still
 * see an `Origin`).
 */
export function pageSecurityHeaders(nonce: string, surface: PageSurface): Record<string, string> {
  return {
    ...commonHeaders(),
    "content-security-policy": pageCsp(nonce, surface),
    "referrer-policy": surface === "portal" ? NO_REFERRER : PAGE_REFERRER_POLICY,
  };
}

/** A fresh CSP nonce: 128 random bits, base64 (safe inside a quoted attribute and a policy). */
export function newNonce(): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString("base64");
}

/** The request header through which proxy.ts hands a page's nonce to route handlers that write HTML themselves. */
export const NONCE_HEADER = "x-nonce";
