/**
 * A destination's transformation in the tenant portal (docs/outbound.md "Transformations"), in Debian's
 * Chromium against the running server: with OUTBOUND_PORTAL_TRANSFORMATIONS=edit (the managed form's
 * PORTAL_TRANSFORMATIONS) the tenant writes code in the editor, test-runs it on sample data (output request
 * and console shown; a failing run shows its error), saves it, and the next delivery reaches a real
 * receiver transformed, its attempt showing the output; with `read` the code is read-only and the test
 * run still works. axe (serious/critical); a screenshot into docs/portal/ (`npm run screenshots`).
 */
import { randomBytes } from "node:crypto";
import type { Page } from "@playwright/test";
import { closePool } from "@/lib/db/pool";
import { createOutboundKey } from "@/lib/outbound/auth";
import { startReceiver, type Receiver } from "./support/receiver";
import { BASE_URL, expect, test } from "./support/browser";
import { expectAccessibleNow } from "./support/accessibility";
import { docsScreenshot } from "./support/docs-screenshots";

const run = randomBytes(4).toString("hex");
const tenant = `portal-tx-${run}`;
let admin = "";
let receiver: Receiver;
let destinationId = "";

async function adminCall(method: string, path: string, body?: unknown, base = "api/v1") {
  const res = await fetch(`${BASE_URL}/outbound/${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${admin}`, ...(body !== undefined ? { "content-type": "application/json" } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : undefined };
}

const setAccess = async (value: "edit" | "read" | null) =>
  expect((await adminCall("PATCH", "/config", { PORTAL_TRANSFORMATIONS: value }, "2025-07-01")).status).toBe(200);

async function openDestination(page: Page) {
  const { json } = await adminCall("GET", `/tenants/${tenant}/portal?theme=light`);
  await page.goto(json.redirect_url as string);
  await page.waitForURL((u) => u.pathname === "/portal" && !u.search.includes("token"));
  await page.goto(`/portal/destinations/${destinationId}`);
}

/**
 * Opens the destination's page until its editor is `readOnly` as `setAccess` just made it. A process applies a
 * change within SETTINGS_TTL_MS (2 s, lib/outbound/settings.ts), and the page follows the setting it was
 * rendered with: one rendered by a process that had not yet read the change keeps the old one until reloaded.
 */
async function openDestinationWhenApplied(page: Page, readOnly: boolean) {
  const editor = page.getByTestId("transformation-code");
  await expect(async () => {
    await openDestination(page);
    if (readOnly) await expect(editor).toHaveAttribute("aria-readonly", "true", { timeout: 3_000 });
    else await expect(editor).not.toHaveAttribute("aria-readonly", "true", { timeout: 3_000 });
  }).toPass({ timeout: 30_000 });
}

/** Replaces the editor's text (typed as one insertion, so the editor adds no closing brackets). */
async function writeCode(page: Page, code: string) {
  const editor = page.getByTestId("transformation-code");
  await editor.click();
  await page.keyboard.press("ControlOrMeta+a");
  await page.keyboard.insertText(code);
}

test.beforeAll(async () => {
  admin = (await createOutboundKey(`portal-tx-${run}`)).key;
  receiver = await startReceiver();
  expect((await adminCall("PUT", `/tenants/${tenant}`)).status).toBe(201);
  const d = await adminCall("POST", `/tenants/${tenant}/destinations`, { type: "webhook", topics: "*", config: { url: `${receiver.url}/in-${run}` } });
  expect(d.status).toBe(201);
  destinationId = d.json.id;
});

test.afterAll(async () => {
  await setAccess(null);
  await receiver?.close();
  await closePool();
});

// Sandbox runs, a delivery and page loads on a busy machine: generous bounds, asserted values unchanged.
test.describe.configure({ mode: "serial", timeout: 120_000 });
const SLOW = { timeout: 20_000 };

test("edit: write, test-run and save a transformation; the delivery is transformed and its attempt shows the output", async ({ page }) => {
  await setAccess("edit");
  await openDestinationWhenApplied(page, false);
  await expect(page.getByRole("heading", { name: "Transformation", exact: true })).toBeVisible(SLOW);

  // A failing run shows its error and saves nothing.
  await writeCode(page, 'addHandler("transform", (request) => { throw new Error("no amount"); });');
  await page.getByTestId("run-transformation").click();
  await expect(page.getByTestId("run-level")).toHaveText("Failed", SLOW);
  await expect(page.getByTestId("run-error")).toContainText("Error: no amount");

  await writeCode(
    page,
    'addHandler("transform", (request, context) => {\n  console.log("topic", context.event.topic);\n  request.body = { cents: request.body.amount * 100 };\n  request.headers["x-shop"] = "demo";\n  request.path = "/orders";\n  return request;\n});',
  );
  await page.getByTestId("test-sample").fill('{ "amount": 12 }');
  await page.getByTestId("run-transformation").click();
  await expect(page.getByTestId("run-level")).toHaveText("OK · info", SLOW);
  await expect(page.getByTestId("run-output")).toContainText('"cents": 1200');
  await expect(page.getByTestId("run-output")).toContainText(`${receiver.url}/orders`);
  await expect(page.getByTestId("run-console")).toContainText("topic sample");
  await expectAccessibleNow(page);
  await page.getByTestId("transformation-code").scrollIntoViewIfNeeded();
  await docsScreenshot(page, "docs/portal/transformation-light.png", { fullPage: true });

  await page.getByTestId("save-transformation").click();
  await expect(page.getByText("Transformation saved: deliveries use it from now on.", { exact: true })).toBeVisible(SLOW);
  expect((await adminCall("GET", `/tenants/${tenant}/destinations/${destinationId}`)).json.transformation).toContain('request.path = "/orders"');
  await expect(page.getByTestId("transformation-state")).toHaveText("Active");

  const published = await adminCall("POST", "/publish", { tenant_id: tenant, topic: "order.paid", data: { amount: 3 } });
  expect(published.status).toBe(202);
  const [got] = await receiver.waitFor(1);
  expect(got.url).toBe("/orders");
  expect(JSON.parse(got.body.toString())).toEqual({ cents: 300 });
  expect(got.headers["x-shop"]).toBe("demo");

  const attempt = page.getByTestId("attempt").first();
  await expect(attempt).toHaveAttribute("data-status", "success", SLOW);
  await attempt.getByRole("button").first().click();
  await expect(attempt.getByTestId("attempt-transformation")).toContainText('"cents": 300', SLOW);
});

test("read: the saved code is shown read-only, with no save; its test run still works", async ({ page }) => {
  await setAccess("read");
  await openDestinationWhenApplied(page, true);
  const editor = page.getByTestId("transformation-code");
  await expect(editor).toHaveAttribute("aria-readonly", "true");
  await expect(editor).toContainText('request.path = "/orders"');
  await expect(page.getByTestId("save-transformation")).toHaveCount(0);
  await editor.click();
  await page.keyboard.insertText("broken(");
  await expect(editor).not.toContainText("broken(");
  await page.getByTestId("test-sample").fill('{ "amount": 1 }');
  await page.getByTestId("run-transformation").click();
  await expect(page.getByTestId("run-output")).toContainText('"cents": 100', SLOW);
});
