/**
 * The Content-Security-Policy of every main page in Debian's Chromium (docs/security-headers.md): each
 * page hydrates and works (a blocked script would stop React), and the browser reports no violation
 * ("Refused to …" in the console, or a `securitypolicyviolation` event). The portal is entered from a
 * page of another site, as a tenant would from the operator's product: the token leaves the address bar,
 * no Referer is sent, and the Strict session cookie still works.
 */
import { randomBytes } from "node:crypto";
import type { Page } from "@playwright/test";
import { closePool } from "@/lib/db/pool";
import { createOutboundKey } from "@/lib/outbound/auth";
import { BASE_URL, createInBrowserContext, expect, INSPECT_PATH, send, test } from "./support/browser";
import { signedIn } from "./support/dashboard-pages";

const run = randomBytes(4).toString("hex");

/**
 * Starts recording `page`'s CSP violations (console messages and `securitypolicyviolation` events of
 * every document it loads). The returned function gives what was recorded so far.
 */
async function recordViolations(page: Page): Promise<() => Promise<string[]>> {
  const messages: string[] = [];
  page.on("console", (m) => {
    if (/Refused to|Content Security Policy/i.test(m.text())) messages.push(`${page.url()}: ${m.text()}`);
  });
  // Injected by the browser's automation channel, which the page's policy does not govern.
  await page.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (e) => {
      const w = window as unknown as { __csp?: string[] };
      (w.__csp ??= []).push(`${e.violatedDirective} ${e.blockedURI}`);
    });
  });
  return async () => [
    ...messages,
    ...(await page.evaluate<string[]>(() => (window as unknown as { __csp?: string[] }).__csp ?? [])).map((v) => `${page.url()}: ${v}`),
  ];
}

/** Waits until React has hydrated the page (its root elements carry React's fiber keys). */
async function hydrated(page: Page) {
  await page.waitForFunction(() => Object.keys(document.body).some((k) => k.startsWith("__react")), undefined, { timeout: 15_000 });
}

test("console: the home page hydrates and creates a test URL; its inspect page shows a request live; no violation", async ({ page }) => {
  const violations = await recordViolations(page);
  await page.goto("/");
  await hydrated(page);
  await page.getByTestId("create-test-url").click();
  await page.waitForURL((u) => INSPECT_PATH.test(u.pathname), { timeout: 15_000 });
  await expect(page.getByTestId("live-indicator")).toHaveAttribute("data-state", "live");
  const id = new URL(page.url()).pathname.slice(1);
  await send(`${BASE_URL}/e/${id}`, "/csp", { headers: { "content-type": "application/json" }, body: '{"csp":true}' });
  await expect(page.getByTestId("request-row")).toHaveCount(1, { timeout: 15_000 });
  expect(await violations()).toEqual([]);
  // A reload of the inspect page (rendered by the server with a new nonce) hydrates as well.
  await page.reload();
  await hydrated(page);
  await expect(page.getByTestId("request-row")).toHaveCount(1);
  const other = await createInBrowserContext(page);
  await page.goto(`/${other.id}`);
  await hydrated(page);
  await expect(page.getByTestId("empty-state")).toBeVisible();
  // The not-found page too (a page Next.js would otherwise prerender at build, without a nonce).
  const missing = await page.goto(`/no/such/page-${run}`);
  expect(missing?.status()).toBe(404);
  await hydrated(page);
  expect(await violations()).toEqual([]);
});

test("dashboard: the signed-in pages hydrate with no violation", async ({ page }) => {
  const violations = await recordViolations(page);
  await signedIn(page);
  for (const path of [
    "/dashboard/connections",
    "/dashboard/requests",
    "/dashboard/events",
    "/dashboard/issues",
    "/dashboard/connections/transformations",
    "/dashboard/outbound",
  ]) {
    await page.goto(path);
    await hydrated(page);
    await expect(page.getByTestId("signed-in-as").first()).toBeVisible();
  }
  await page.goto("/dashboard/sign-in");
  await hydrated(page);
  expect(await violations()).toEqual([]);
});

test("portal: entered from another site's page, the token leaves the address bar, no Referer carries it, the session works; no violation", async ({ page }) => {
  const violations = await recordViolations(page);
  const admin = (await createOutboundKey(`csp-${run}`)).key;
  const call = (method: string, path: string) => fetch(`${BASE_URL}/outbound/api/v1${path}`, { method, headers: { authorization: `Bearer ${admin}` } });
  expect((await call("PUT", `/tenants/csp-${run}`)).status).toBe(201);
  const url = ((await (await call("GET", `/tenants/csp-${run}/portal`)).json()) as { redirect_url: string }).redirect_url;
  const token = new URL(url).searchParams.get("token")!;
  // Every request the browser sends after the operator's page, with its Referer.
  const referers: string[] = [];
  page.on("request", (r) => {
    const referer = r.headers()["referer"];
    if (referer && r.url().startsWith(BASE_URL)) referers.push(referer);
  });
  // Another site's page (the operator's product) linking to the portal: a cross-site navigation.
  await page.setContent(`<a id="go" href="${url}">Webhooks</a>`);
  await page.click("#go");
  await page.waitForURL((u) => u.pathname === "/portal" && !u.search.includes("token"), { timeout: 15_000 });
  await hydrated(page);
  await expect(page.getByText(`csp-${run}`)).toBeVisible();
  await expect(page.getByRole("heading", { name: "No destinations yet" })).toBeVisible();
  expect(page.url()).not.toContain(token);
  expect(await page.evaluate(() => document.referrer)).toBe("");
  expect(referers.filter((r) => r.includes(token))).toEqual([]);
  // Back does not return to an address holding the token.
  expect(await page.evaluate(() => history.length)).toBeLessThanOrEqual(2);
  await page.getByRole("link", { name: "Add destination" }).first().click();
  await expect(page).toHaveURL(/\/portal\/destinations\/new$/);
  await hydrated(page);
  expect(await violations()).toEqual([]);
});

test.afterAll(async () => {
  await closePool();
});
