// The portal's token exchange (docs/portal.md#sending-a-tenant-to-the-portal): `/portal?token=…&theme=…` (the outbound portal
// redirect_url) is sent here by app/portal/page.tsx. A valid tenant JWT becomes the httpOnly,
// SameSite=Strict session cookie (inside a frame PORTAL_FRAME_ANCESTORS allows: a partitioned one); the answer is a tiny same-origin page that replaces the address with
// `/portal` (no token; its script carries proxy.ts's CSP nonce, and a meta refresh does the same where
// script is off). A navigation started by our own page is same-site, so the Strict cookie goes
// along, which it would not on a redirect chain started by the operator's site. A bad or expired token
// goes to /portal/signed-out with the reason; the token is never echoed.
import { NextResponse } from "next/server";
import { NONCE_HEADER } from "@/lib/http/security-headers";
import { verifyTenantToken } from "@/lib/outbound/auth";
import { PORTAL_COOKIE } from "@/lib/outbound/auth";
import { asTheme, embeddedRequest, PORTAL_THEME_COOKIE, portalCookieOptions } from "@/lib/portal/portal";

export const dynamic = "force-dynamic";

const NO_STORE = { "cache-control": "no-store", "referrer-policy": "no-referrer" };

export async function GET(req: Request) {
  const url = new URL(req.url);
  const token = url.searchParams.get("token") ?? "";
  const theme = asTheme(url.searchParams.get("theme"));
  const verified = await verifyTenantToken(token);
  // Inside an allowed frame the session is a partitioned cookie (lib/portal/portal.ts portalCookieOptions).
  const embedded = embeddedRequest(req.headers);
  if (!("tenantId" in verified)) {
    const reason = verified.error === "expired" ? "expired" : "invalid";
    const res = new NextResponse(null, { status: 303, headers: { ...NO_STORE, location: `/portal/signed-out?reason=${reason}` } });
    res.cookies.set(PORTAL_COOKIE, "", { ...portalCookieOptions(0, embedded) });
    return res;
  }
  const { exp } = JSON.parse(Buffer.from(token.split(".")[1], "base64url").toString("utf8")) as { exp: number };
  const maxAge = Math.max(1, exp - Math.floor(Date.now() / 1000));
  // proxy.ts sets the page policy with this nonce; base64 only, so it is safe inside the attribute.
  const nonce = /^[A-Za-z0-9+/]+={0,2}$/.test(req.headers.get(NONCE_HEADER) ?? "") ? req.headers.get(NONCE_HEADER)! : "";
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Opening the portal…</title><meta http-equiv="refresh" content="0;url=/portal"></head><body style="font-family:system-ui,sans-serif;padding:2rem"><p>Opening the portal… <a href="/portal">Continue</a></p><script nonce="${nonce}">location.replace("/portal")</script></body></html>`;
  const res = new NextResponse(html, { status: 200, headers: { ...NO_STORE, "content-type": "text/html; charset=utf-8" } });
  res.cookies.set(PORTAL_COOKIE, token, portalCookieOptions(maxAge, embedded));
  if (theme) res.cookies.set(PORTAL_THEME_COOKIE, theme, portalCookieOptions(maxAge, embedded));
  else res.cookies.set(PORTAL_THEME_COOKIE, "", portalCookieOptions(0, embedded));
  return res;
}
