/**
 * Ordered delivery on the portal's destination page (docs/outbound.md "Ordered delivery",
 * components/portal/OrderingPanel.tsx), against the running server and real PostgreSQL: a destination
 * ordered by `data.k` under `block`, whose first delivery of two keys failed for good, shows its setting
 * and the two blocked keys; the tenant releases one, then the other, and the page and the API agree; the
 * dashboard's tenant page shows an ordered destination's key and releases its blocked key.
 * axe on the page, light and dark.
 */
import { randomBytes } from "node:crypto";
import { closePool } from "@/lib/db/pool";
import { createOutboundKey } from "@/lib/outbound/auth";
import { expect, test } from "./support/browser";
import { expectAccessible } from "./support/accessibility";
import { signedIn } from "./support/dashboard-pages";
import { outboundCall } from "./support/outbound";
import { eventually, type Receiver, startReceiver } from "./support/receiver";
import { docsScreenshot } from "./support/docs-screenshots";

test.describe.configure({ mode: "serial", timeout: 120_000 });

const run = randomBytes(4).toString("hex");
let admin = "";
let receiver: Receiver;
const adminCall = (method: string, path: string, body?: unknown) => outboundCall(admin, method, path, body);

test.beforeAll(async () => {
  admin = (await createOutboundKey(`ordering-ui-${run}`)).key;
  receiver = await startReceiver();
  receiver.respond({ status: 503, body: "down" });
});
test.afterAll(async () => {
  await receiver?.close();
  await closePool();
});

/** Tenant `tenant` with a webhook destination to the (failing) receiver, ordered by `key` under `block`; returns its id. */
async function blockingDestination(tenant: string, key: string): Promise<string> {
  await adminCall("PUT", `/tenants/${tenant}`);
  const created = await adminCall("POST", `/tenants/${tenant}/destinations`, {
    type: "webhook",
    topics: "*",
    config: { url: `${receiver.url}/${tenant}` },
    ordering: { key, on_exhausted: "block" },
  });
  expect(created.status, created.text).toBe(201);
  return created.json.id as string;
}

test("portal: an ordered destination shows its key, its blocked keys, and releases them one by one", async ({ page }) => {
  const tenant = `ordering-${run}`;
  const id = await blockingDestination(tenant, "data.k");
  // Not eligible for retry: the first failure exhausts it and blocks its key.
  for (const k of ["alpha", "beta"])
    await adminCall("POST", "/publish", { tenant_id: tenant, topic: `ordered.${run}`, eligible_for_retry: false, data: { k } });
  await eventually(async () => (await adminCall("GET", `/tenants/${tenant}/destinations/${id}`)).json.ordering?.blocked_keys?.length === 2);

  const { json } = await adminCall("GET", `/tenants/${tenant}/portal`);
  await page.goto(json.redirect_url);
  await page.waitForURL((u) => u.pathname === "/portal" && !u.search.includes("token"));
  await page.goto(`/portal/destinations/${id}`);
  await expect(page.getByRole("heading", { name: "Ordered delivery", exact: true })).toBeVisible();
  await expect(page.getByTestId("ordering-key")).toContainText("Per value of data.k");
  await expect(page.getByTestId("ordering-on-exhausted")).toHaveText("Block the key until it is released");
  const list = page.getByRole("table", { name: "Blocked ordering keys" });
  await expect(list.getByTestId("blocked-key")).toHaveCount(2);
  await expectAccessible(page);
  await docsScreenshot(page.getByTestId("portal-ordering"), "docs/portal/ordering-light.png");
  // Dark at a phone's width: the panel fits (the time goes under the key).
  await page.emulateMedia({ colorScheme: "dark" });
  await page.setViewportSize({ width: 390, height: 844 });
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  await docsScreenshot(page.getByTestId("portal-ordering"), "docs/portal/ordering-dark-390.png");
  await page.emulateMedia({ colorScheme: "light" });
  await page.setViewportSize({ width: 1280, height: 800 });

  await page.getByRole("button", { name: "Release key alpha", exact: true }).click();
  await expect(list.getByTestId("blocked-key")).toHaveCount(1);
  await expect(list.getByText("beta", { exact: true })).toBeVisible();
  expect((await adminCall("GET", `/tenants/${tenant}/destinations/${id}`)).json.ordering.blocked_keys.map((b: { key: string }) => b.key)).toEqual(["beta"]);

  await page.getByRole("button", { name: "Release key beta", exact: true }).click();
  await expect(page.getByText("No key is blocked.", { exact: true })).toBeVisible();
  expect((await adminCall("GET", `/tenants/${tenant}/destinations/${id}`)).json.ordering.blocked_keys).toEqual([]);
});

test("dashboard: the tenant's destination table shows the ordering and releases its blocked keys", async ({ page }) => {
  const tenant = `ordering-ops-${run}`;
  const id = await blockingDestination(tenant, "topic");
  await adminCall("POST", "/publish", { tenant_id: tenant, topic: `ops.${run}`, eligible_for_retry: false, data: { n: 1 } });
  await eventually(async () => (await adminCall("GET", `/tenants/${tenant}/destinations/${id}`)).json.ordering?.blocked_keys?.length === 1);

  await signedIn(page);
  await page.goto(`/dashboard/outbound/${encodeURIComponent(tenant)}`);
  const cell = page.getByTestId("tenant-destination-ordering");
  await expect(cell.getByText("Ordered by topic", { exact: true })).toBeVisible();
  await expect(cell.getByText("1 key blocked", { exact: true })).toBeVisible();
  await expectAccessible(page);
  await cell.getByRole("button", { name: "Release", exact: true }).click();
  await expect(cell.getByText("1 key blocked", { exact: true })).toHaveCount(0);
  expect((await adminCall("GET", `/tenants/${tenant}/destinations/${id}`)).json.ordering.blocked_keys).toEqual([]);
});
