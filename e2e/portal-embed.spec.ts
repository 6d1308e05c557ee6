/**
 * The tenant portal's delivery health and embedding (docs/portal.md "Delivery health", "Embedding the portal"),
 * in Chromium against real servers and PostgreSQL:
 * - a destination failing 407 of 717 attempts shows "Failing · 57% failed" (not a green "Enabled"), in light
 *   and dark, at a phone's width, axe clean;
 * - the gateway destination type is not offered to a tenant (OUTBOUND_TENANT_GATEWAY_TYPE off);
 * - embedded cross-site: a server with PORTAL_FRAME_ANCESTORS naming one origin (http://localhost:A, another site
 *   than the portal's http://127.0.0.1) shows the signed-in portal in an iframe of a page there, where the
 *   session is a partitioned SameSite=None cookie and a change (disable) passes the CSRF guard; a page on an
 *   origin not listed (http://localhost:B) is refused by frame-ancestors.
 */
import { randomBytes } from "node:crypto";
import http from "node:http";
import type { Page } from "@playwright/test";
import { closePool, getPool } from "@/lib/db/pool";
import { createOutboundKey } from "@/lib/outbound/auth";
import { freePort, startServer, type RunningServer } from "./support/servers";
import { BASE_URL, expect, newClient, test } from "./support/browser";
import { expectAccessibleNow } from "./support/accessibility";
import { docsScreenshot } from "./support/docs-screenshots";

const run = randomBytes(4).toString("hex");
const tenant = `embed-${run}`;
const SHOTS = "docs/portal";
let admin = "";
let destinationId = "";

async function adminCall(method: string, path: string, body?: unknown, base = BASE_URL) {
  const res = await fetch(`${base}/outbound/api/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${admin}`, ...(body !== undefined ? { "content-type": "application/json" } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : undefined };
}

/** A page of the operator's product at `port` (loopback) that frames `src`. */
async function embeddingPage(port: number, src: () => string): Promise<http.Server> {
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    res.end(
      `<!doctype html><html lang="en"><head><title>Operator app</title></head><body><h1>Operator app</h1>` +
        `<iframe title="Webhooks" src="${src().replace(/"/g, "&quot;")}" style="width:1000px;height:700px;border:0"></iframe></body></html>`,
    );
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  return server;
}

test.describe.configure({ mode: "serial", timeout: 120_000 });

test.beforeAll(async () => {
  admin = (await createOutboundKey(`embed-test-${run}`)).key;
  expect((await adminCall("PUT", `/tenants/${tenant}`)).status).toBe(201);
  const d = await adminCall("POST", `/tenants/${tenant}/destinations`, { type: "webhook", topics: "*", config: { url: "https://customer.example/hooks" } });
  expect(d.status).toBe(201);
  destinationId = d.json.id;
  // 717 attempts in the last hour, 407 of them failed (the newest failure a 503).
  await getPool().query(
    `INSERT INTO outbound_attempts (id, event_id, tenant_id, destination_id, destination_type, topic, status, code, attempt_number, manual, time)
     SELECT 'atm_e' || $3 || '_' || g, 'evt_e' || g, $1, $2, 'webhook', 't',
            CASE WHEN g <= 407 THEN 'failed' ELSE 'success' END, CASE WHEN g <= 407 THEN '503' ELSE '200' END, 0, false,
            now() - interval '50 minutes' + g * interval '1 second'
       FROM generate_series(1, 717) g`,
    [tenant, destinationId, run],
  );
});

test.afterAll(async () => {
  await closePool();
});

async function enter(page: Page) {
  const { json } = await adminCall("GET", `/tenants/${tenant}/portal`);
  await page.goto(json.redirect_url as string);
  await page.waitForURL((u) => u.pathname === "/portal" && !u.search.includes("token"));
}

test("a failing destination says so in the list and on its page: light, dark, phone width, axe", async ({ browser }) => {
  for (const colorScheme of ["light", "dark"] as const) {
    const context = await newClient(browser, { colorScheme, viewport: { width: 1100, height: 800 } });
    const page = await context.newPage();
    await enter(page);
    const row = page.getByTestId("destination-list").getByRole("listitem");
    const badge = row.getByTestId("health-badge");
    await expect(badge).toHaveText("Failing · 57% failed");
    await expect(badge).toHaveAttribute("data-level", "failing");
    await expect(row.getByText("Enabled", { exact: true })).toHaveCount(0);
    await expect(row.getByTestId("health-line")).toContainText("407 of 717 attempts failed in the last 24 hours · last failure");
    await expect(row.getByTestId("health-line")).toContainText("(503)");
    await expectAccessibleNow(page, `list, ${colorScheme}`);
    await docsScreenshot(page, `${SHOTS}/health-${colorScheme}.png`, { fullPage: true });
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await row.getByRole("link").click();
    await expect(page.getByTestId("health-badge")).toHaveText("Failing · 57% failed");
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await expectAccessibleNow(page, `destination, ${colorScheme}, 390 px`);
    await context.close();
  }
});

test("keyboard: the health badge is read with its destination, the link is reachable by Tab", async ({ page }) => {
  await enter(page);
  const link = page.getByTestId("destination-list").getByRole("link");
  for (let i = 0; i < 20 && !(await link.evaluate((el) => el === document.activeElement)); i++) await page.keyboard.press("Tab");
  await expect(link).toBeFocused();
  await page.keyboard.press("Enter");
  await page.waitForURL(new RegExp(`/portal/destinations/${destinationId}$`));
  await expect(page.getByTestId("health-line")).toContainText("407 of 717");
});

test("the gateway destination type is not offered to the tenant", async ({ page }) => {
  await enter(page);
  await page.goto("/portal/destinations/new");
  await expect(page.getByText("Webhook", { exact: true })).toBeVisible();
  await expect(page.getByText("Hookyard gateway")).toHaveCount(0);
});

test("embedded cross-site from an allowed origin: signed in inside the iframe, changes work; another origin is refused", async ({ browser }) => {
  test.setTimeout(120_000);
  const [allowedPort, refusedPort] = [await freePort(), await freePort()];
  let server: RunningServer | null = null;
  let redirect = "";
  const allowed = await embeddingPage(allowedPort, () => redirect);
  const refused = await embeddingPage(refusedPort, () => redirect);
  try {
    server = await startServer({
      DATABASE_URL: process.env.DATABASE_URL!,
      TRUST_PROXY: "true",
      WORKER_ENABLED: "false",
      PORTAL_FRAME_ANCESTORS: `http://localhost:${allowedPort}`,
    });
    expect(server.url.startsWith("http://127.0.0.1:")).toBe(true);
    redirect = (await adminCall("GET", `/tenants/${tenant}/portal?theme=light`, undefined, server.url)).json.redirect_url as string;

    const context = await newClient(browser, { baseURL: server.url });
    const page = await context.newPage();
    await page.goto(`http://localhost:${allowedPort}/`);
    const frame = page.frameLocator("iframe");
    await expect(frame.getByRole("heading", { name: "Event destinations" })).toBeVisible({ timeout: 30_000 });
    await expect(frame.getByText("You are not signed in", { exact: false })).toHaveCount(0);
    // A server just started answers its first list slowly on a busy machine: a generous bound.
    await expect(frame.getByTestId("health-badge")).toHaveText("Failing · 57% failed", { timeout: 30_000 });
    const cookie = (await context.cookies(server.url)).find((c) => c.name === "hy_portal");
    expect(cookie).toMatchObject({ sameSite: "None", secure: true, httpOnly: true });
    // A change from inside the frame: the cookie goes along and the CSRF guard lets the portal's own request through.
    await frame.getByTestId("destination-list").getByRole("link").click();
    await frame.getByRole("button", { name: "Disable" }).click();
    await expect(frame.getByRole("button", { name: "Enable" })).toBeVisible();
    expect((await adminCall("GET", `/tenants/${tenant}/destinations/${destinationId}`)).json.disabled_at).not.toBeNull();
    await frame.getByRole("button", { name: "Enable" }).click();
    await expect(frame.getByRole("button", { name: "Disable" })).toBeVisible();
    await expectAccessibleNow(page, "embedded portal");

    // The same page on an origin PORTAL_FRAME_ANCESTORS does not list: Chromium refuses to render the portal in the frame.
    const other = await context.newPage();
    const refusedLoad = other.waitForEvent("console", { predicate: (m) => /frame-ancestors/.test(m.text()), timeout: 30_000 });
    await other.goto(`http://localhost:${refusedPort}/`);
    await refusedLoad;
    await expect(other.frameLocator("iframe").getByRole("heading", { name: "Event destinations" })).toHaveCount(0);
    await context.close();
  } finally {
    await server?.stop();
    allowed.close();
    refused.close();
  }
});
