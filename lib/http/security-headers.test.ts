/** The policies of lib/http/security-headers.ts under different settings (docs/security-headers.md); the served headers are checked in e2e/security-headers.test.ts. */
import { beforeEach, describe, expect, it, vi } from "vitest";

/** The module under settings `env` (settings are parsed once per module instance). */
async function load(env: Record<string, string>) {
  vi.resetModules();
  for (const [k, v] of Object.entries(env)) vi.stubEnv(k, v);
  return import("@/lib/http/security-headers");
}

describe("lib/http/security-headers", () => {
  beforeEach(() => {
    vi.unstubAllEnvs();
  });

  it("pageCsp – the portal allows its logo's origin and the listed frame ancestors; other pages neither", async () => {
    const m = await load({
      PUBLIC_URL: "https://hooks.example.com",
      PORTAL_LOGO_URL: "https://cdn.acme.test/logo.svg?v=2",
      PORTAL_FRAME_ANCESTORS: "https://app.acme.test",
    });
    const portal = m.pageCsp("bm9uY2U=", m.pageSurfaceOf("/portal/destinations/new"));
    expect(portal).toContain("img-src 'self' data: blob: https://cdn.acme.test;");
    expect(portal).toContain("frame-ancestors https://app.acme.test;");
    expect(portal).toContain("script-src 'self' 'nonce-bm9uY2U=' 'strict-dynamic';");
    expect(portal.endsWith("upgrade-insecure-requests")).toBe(true);
    const page = m.pageCsp("bm9uY2U=", m.pageSurfaceOf("/portalx"));
    expect(page).toContain("img-src 'self' data: blob:;");
    expect(page).toContain("frame-ancestors 'none'");
    expect(m.pageSecurityHeaders("bm9uY2U=", "portal")["referrer-policy"]).toBe("no-referrer");
    expect(m.pageSecurityHeaders("bm9uY2U=", "page")["referrer-policy"]).toBe("strict-origin-when-cross-origin");
    expect(m.apiSecurityHeaders()["strict-transport-security"]).toBe(m.HSTS);
  });

  it("on an http PUBLIC_URL: no HSTS, no upgrade; development allows eval and the reload socket", async () => {
    const m = await load({ PUBLIC_URL: "http://localhost:3000", NODE_ENV: "development" });
    expect(m.apiSecurityHeaders()).toEqual({ "x-content-type-options": "nosniff", "content-security-policy": m.API_CSP, "referrer-policy": "no-referrer" });
    const csp = m.pageCsp("bm9uY2U=", "page");
    expect(csp).not.toContain("upgrade-insecure-requests");
    expect(csp).toContain("'strict-dynamic' 'unsafe-eval';");
    expect(csp).toContain("connect-src 'self' ws: wss:;");
  });

  it("newNonce – 128 random bits in base64, different each time", async () => {
    const m = await load({});
    const a = m.newNonce();
    expect(a).toMatch(/^[A-Za-z0-9+/]{22}==$/);
    expect(m.newNonce()).not.toBe(a);
  });
});
