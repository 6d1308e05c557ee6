import { describe, expect, it } from "vitest";
import { cookieDomainFor, SESSION_COOKIE, SESSION_TTL_MS, sessionCookie } from "@/lib/console/sessions";
import { readCookie } from "@/lib/http/cookies";

describe("cookieDomainFor", () => {
  it.each([
    ["console.example.com", "example.com"],
    ["console.example.com:3000", "example.com"],
    ["CONSOLE.Example.COM", "example.com"],
    ["a.b.example.org", "b.example.org"],
    ["hookyard.internal.corp.example.net:8443", "internal.corp.example.net"],
  ])("cookieDomainFor(%s, auto) → parent domain %s", (host, domain) => {
    expect(cookieDomainFor(host, "auto")).toBe(domain);
  });

  it.each([
    ["localhost"],
    ["localhost:3000"],
    ["127.0.0.1"],
    ["127.0.0.1:54321"],
    ["10.1.2.3:80"],
    ["[::1]:3000"],
    ["[2001:db8::1]"],
    ["example.com"],
    ["example.com:443"],
    [""],
  ])("cookieDomainFor(%j, auto) → no Domain (localhost, IP address, two-label or empty host)", (host) => {
    expect(cookieDomainFor(host, "auto")).toBeUndefined();
  });

  it.each(["hookyard.fly.dev", "x.herokuapp.com", "example.co.uk", "hooks.github.io"])(
    "cookieDomainFor(%s, auto) → no Domain: the parent is a public suffix, which browsers refuse",
    (host) => {
      expect(cookieDomainFor(host, "auto")).toBeUndefined();
    },
  );

  it("cookieDomainFor – below a public suffix the parent is used when it is a registrable domain or under one", () => {
    expect(cookieDomainFor("console.example.co.uk", "auto")).toBe("example.co.uk");
    expect(cookieDomainFor("a.hookyard.fly.dev", "auto")).toBe("hookyard.fly.dev");
    expect(cookieDomainFor("a.b.example.com", "auto")).toBe("b.example.com");
  });

  it("cookieDomainFor – an explicit COOKIE_DOMAIN wins over the host", () => {
    expect(cookieDomainFor("console.example.com", "hooks.example.org")).toBe("hooks.example.org");
    expect(cookieDomainFor("localhost:3000", "example.org")).toBe("example.org");
  });

  it("cookieDomainFor – empty setting means a host-only cookie", () => {
    expect(cookieDomainFor("console.example.com", "")).toBeUndefined();
  });
});

describe("sessionCookie", () => {
  const attrs = (cookie: string) => cookie.split("; ").slice(1);

  it("sessionCookie – hookyard_session=token; Path=/; fixed Expires; HttpOnly; SameSite=Strict; no Domain/Secure by default", () => {
    const expiresAt = new Date(Date.now() + SESSION_TTL_MS);
    const cookie = sessionCookie({ token: "tok123", expiresAt, secure: false });
    expect(SESSION_COOKIE).toBe("hookyard_session");
    expect(cookie.startsWith("hookyard_session=tok123; ")).toBe(true);
    const a = attrs(cookie);
    expect(a).toContain("Path=/");
    expect(a).toContain(`Expires=${expiresAt.toUTCString()}`);
    expect(a).toContain("HttpOnly");
    expect(a).toContain("SameSite=Strict");
    expect(a.some((x) => x.startsWith("Domain="))).toBe(false);
    expect(a).not.toContain("Secure");
    const maxAge = a.find((x) => x.startsWith("Max-Age="));
    if (maxAge) expect(Math.abs(Number(maxAge.slice(8)) - SESSION_TTL_MS / 1000)).toBeLessThanOrEqual(1);
  });

  it("sessionCookie – Domain and Secure when asked", () => {
    const cookie = sessionCookie({ token: "t", expiresAt: new Date(Date.now() + 1000), domain: "example.com", secure: true });
    expect(attrs(cookie)).toContain("Domain=example.com");
    expect(attrs(cookie)).toContain("Secure");
  });

  it("sessionCookie – the session lifetime is 90 days", () => {
    expect(SESSION_TTL_MS).toBe(90 * 24 * 60 * 60 * 1000);
  });

  it("sessionCookie – an expiry in the past gives Max-Age=0, never negative", () => {
    const cookie = sessionCookie({ token: "t", expiresAt: new Date(Date.now() - 60_000), secure: false });
    const maxAge = attrs(cookie).find((x) => x.startsWith("Max-Age="));
    if (maxAge) expect(Number(maxAge.slice(8))).toBe(0);
  });
});

describe("readCookie", () => {
  it("readCookie – finds the named cookie among others", () => {
    expect(readCookie("a=1; hookyard_session=abc; b=2", "hookyard_session")).toBe("abc");
    expect(readCookie("hookyard_session=abc", "hookyard_session")).toBe("abc");
    expect(readCookie("a=1;hookyard_session=abc;b=2", "hookyard_session")).toBe("abc");
  });

  it("readCookie – a cookie whose name only ends or starts with the name does not match", () => {
    expect(readCookie("xhookyard_session=evil; hookyard_session=good", "hookyard_session")).toBe("good");
    expect(readCookie("hookyard_session_old=evil", "hookyard_session")).toBeUndefined();
  });

  it("readCookie – keeps '=' inside the value and trims spaces", () => {
    expect(readCookie("hookyard_session= a=b= ", "hookyard_session")).toBe("a=b=");
  });

  it("readCookie – missing header or cookie → undefined", () => {
    expect(readCookie(undefined, "hookyard_session")).toBeUndefined();
    expect(readCookie(null, "hookyard_session")).toBeUndefined();
    expect(readCookie("", "hookyard_session")).toBeUndefined();
    expect(readCookie("a=1; b=2", "hookyard_session")).toBeUndefined();
    expect(readCookie("hookyard_session", "hookyard_session")).toBeUndefined();
  });
});
