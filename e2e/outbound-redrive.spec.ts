/**
 * The event catalog and bulk redrive in the browser (docs/outbound.md "Event catalog", "Bulk redrive";
 * docs/portal.md), against the running server and real PostgreSQL: the operator's Outbound redrive page
 * plans and runs a redrive of deliveries that failed while a real local receiver was down, and each event
 * reaches it again; a tenant's portal shows the catalog (description, the schema as a field table, the
 * example) and redrives its own failed deliveries. axe on each page.
 */
import { randomBytes } from "node:crypto";
import { closePool } from "@/lib/db/pool";
import { createOutboundKey } from "@/lib/outbound/auth";
import { expect, test } from "./support/browser";
import { BASE_URL } from "./support/client";
import { expectAccessible } from "./support/accessibility";
import { signedIn } from "./support/dashboard-pages";
import { eventually, type Receiver, startReceiver } from "./support/receiver";
import { docsScreenshot } from "./support/docs-screenshots";

test.describe.configure({ mode: "serial", timeout: 120_000 });

const run = randomBytes(4).toString("hex");
let admin = "";
let receiver: Receiver;

async function adminCall(method: string, path: string, body?: unknown) {
  const res = await fetch(`${BASE_URL}/outbound/api/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${admin}`, ...(body !== undefined ? { "content-type": "application/json" } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : undefined };
}

/** A tenant with a webhook destination to the receiver's `path`, and `n` events that failed while it answered 503 (not eligible for retry: failed for good). */
async function failedTenant(tenant: string, path: string, n: number): Promise<{ destination: string; events: string[] }> {
  await adminCall("PUT", `/tenants/${tenant}`);
  const destination = (await adminCall("POST", `/tenants/${tenant}/destinations`, { type: "webhook", topics: "*", config: { url: `${receiver.url}${path}` } }))
    .json.id as string;
  const events: string[] = [];
  for (let i = 0; i < n; i++)
    events.push((await adminCall("POST", "/publish", { tenant_id: tenant, topic: `order.paid.${run}`, eligible_for_retry: false, data: { i } })).json.id);
  await eventually(async () => {
    const { json } = await adminCall("GET", `/attempts?tenant_id=${tenant}&status=failed`);
    return json.models.length === n;
  });
  return { destination, events };
}

test.beforeAll(async () => {
  admin = (await createOutboundKey(`redrive-ui-${run}`)).key;
  receiver = await startReceiver();
});
test.afterAll(async () => {
  await receiver?.close();
  await closePool();
});

test("dashboard: plan a redrive of a tenant's failed deliveries, run it, see it complete; every event reaches the receiver again", async ({ page }) => {
  const tenant = `redrive-ops-${run}`;
  receiver.respond({ status: 503, body: "down" });
  const { events } = await failedTenant(tenant, "/ops", 3);
  receiver.respond({ status: 200, body: "ok" });
  const since = Date.now();

  await signedIn(page);
  await page.goto("/dashboard/redrive");
  await expect(page.getByRole("heading", { name: "Outbound redrive" })).toBeVisible();
  await page.getByLabel("Tenant").fill(tenant);
  await page.getByRole("button", { name: "Plan redrive" }).click();
  await expect(page.getByTestId("redrive-plan")).toHaveText("3 deliveries whose last attempt failed, in 1 batch.");
  await expectAccessible(page);
  await page.getByRole("button", { name: "Redrive 3 deliveries" }).click();
  await expect(page.getByTestId("redrive-progress")).toHaveText("3 of 3 queued for a new attempt.", { timeout: 30_000 });
  await expect(page.getByText("Completed", { exact: true }).first()).toBeVisible();
  await docsScreenshot(page, "docs/dashboard/redrive-light.png", { fullPage: true });
  await eventually(() => events.every((e) => receiver.received.some((r) => r.at >= since && r.headers["x-outbound-event-id"] === e)), 30_000);
});

test("portal: the event catalog shows each topic's description, fields and example; the tenant redrives its own failures", async ({ page }) => {
  const tenant = `redrive-portal-${run}`;
  const topic = `invoice.sent.${run}`;
  const put = await adminCall("PUT", `/catalog/${topic}`, {
    description: "An invoice was sent to a customer",
    schema: {
      type: "object",
      required: ["invoice_id"],
      properties: {
        invoice_id: { type: "string", description: "The invoice" },
        customer: { type: "object", properties: { email: { type: "string", format: "email" } } },
      },
    },
    example: { invoice_id: "inv_1", customer: { email: "a@example.com" } },
  });
  expect(put.status, JSON.stringify(put.json)).toBe(201);
  receiver.respond({ status: 503, body: "down" });
  await failedTenant(tenant, "/portal", 2);
  receiver.respond({ status: 200, body: "ok" });

  const { json } = await adminCall("GET", `/tenants/${tenant}/portal`);
  await page.goto(json.redirect_url);
  await page.waitForURL((u) => u.pathname === "/portal" && !u.search.includes("token"));
  await page.getByRole("link", { name: "Event catalog" }).click();
  const card = page.getByTestId("catalog-topic").filter({ hasText: topic });
  await expect(card).toContainText("An invoice was sent to a customer");
  await expect(card.getByRole("row", { name: /invoice_id/ })).toContainText("string");
  await expect(card.getByRole("row", { name: /customer\.email/ })).toContainText("string (email)");
  await expect(card).toContainText('"inv_1"');
  await docsScreenshot(card, "docs/portal/catalog-light.png");
  await expectAccessible(page);

  await page.goto("/portal/redrive");
  await page.getByRole("button", { name: "Plan redrive" }).click();
  await expect(page.getByTestId("redrive-plan")).toHaveText("2 deliveries whose last attempt failed, in 1 batch.");
  await page.getByRole("button", { name: "Redrive 2 deliveries" }).click();
  await expect(page.getByTestId("redrive-progress")).toHaveText("2 of 2 queued for a new attempt.", { timeout: 30_000 });
  await expectAccessible(page);
  await adminCall("DELETE", `/catalog/${topic}`);
});
