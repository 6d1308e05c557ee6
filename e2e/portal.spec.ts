/**
 * The tenant portal in Debian's Chromium (docs/portal.md) against the running server
 * and real PostgreSQL: entered from the outbound portal redirect_url (token gone from the address bar,
 * httpOnly SameSite=Strict cookie), a webhook destination created from the schema form (client and
 * server validation shown by the fields) pointing at a real local receiver, an event published by the
 * operator with the admin key and its attempt seen in the portal with the response as text, a retry,
 * secret reveal and rotation, enable/disable, edit, delete; a second tenant's portal shows none of it
 * and its cookie gets 403/404 for the first tenant's resources; bad and expired links show the
 * signed-out page. axe (serious/critical) on every page; screenshots into docs/portal/ (`npm run screenshots`).
 */
import { createHmac, randomBytes } from "node:crypto";
import { mkdirSync } from "node:fs";
import type { Page } from "@playwright/test";
import { closePool, getPool } from "@/lib/db/pool";
import { createOutboundKey, tenantToken } from "@/lib/outbound/auth";
import { startReceiver, type Receiver } from "./support/receiver";
import { startServer } from "./support/servers";
import { BASE_URL, expect, newClient, test } from "./support/browser";
import { expectAccessibleNow } from "./support/accessibility";
import { docsScreenshot } from "./support/docs-screenshots";

const run = randomBytes(4).toString("hex");
const tenantA = `portal-a-${run}`;
const tenantB = `portal-b-${run}`;
const SHOTS = "docs/portal";
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

async function portalUrl(tenant: string, theme?: "light" | "dark"): Promise<string> {
  const { status, json } = await adminCall("GET", `/tenants/${tenant}/portal${theme ? `?theme=${theme}` : ""}`);
  expect(status).toBe(200);
  return json.redirect_url as string;
}

/** Opens the portal link in `page` and waits until it landed on /portal without the token. */
async function enter(page: Page, url: string) {
  await page.goto(url);
  await page.waitForURL((u) => u.pathname === "/portal" && !u.search.includes("token"));
  expect(page.url()).not.toContain("token=");
}

test.beforeAll(async () => {
  admin = (await createOutboundKey(`portal-test-${run}`)).key;
  receiver = await startReceiver();
  receiver.respond({ status: 200, body: "<b>thanks</b><script>window.__pwned=1</script>" });
  expect((await adminCall("PUT", `/tenants/${tenantA}`)).status).toBe(201);
  expect((await adminCall("PUT", `/tenants/${tenantB}`)).status).toBe(201);
  mkdirSync(SHOTS, { recursive: true });
});

test.afterAll(async () => {
  await receiver?.close();
  await closePool();
});

test.describe.configure({ mode: "serial" });

let destinationId = "";
let eventId = "";
let attemptId = "";

test("entering from the redirect_url: the token becomes an httpOnly SameSite=Strict cookie and leaves the address bar; empty state says what to do", async ({
  page,
  context,
}) => {
  await enter(page, await portalUrl(tenantA, "light"));
  const cookie = (await context.cookies()).find((c) => c.name === "hy_portal");
  expect(cookie).toBeDefined();
  expect(cookie!.httpOnly).toBe(true);
  expect(cookie!.sameSite).toBe("Strict");
  expect(cookie!.path).toBe("/");
  // The cookie is not readable by page scripts.
  expect(await page.evaluate(() => document.cookie)).not.toContain("hy_portal=");
  await expect(page.locator("[data-portal]")).toHaveAttribute("data-theme", "light");
  await expect(page.getByRole("heading", { name: "No destinations yet" })).toBeVisible();
  await expect(page.getByText(tenantA)).toBeVisible();
  await expectAccessibleNow(page, "empty list");
  await docsScreenshot(page, `${SHOTS}/empty-light.png`, { fullPage: true });
});

test("a webhook destination created from the schema form: client checks, the API's 422 by its field, then created", async ({ page }) => {
  await enter(page, await portalUrl(tenantA, "light"));
  await page.getByRole("link", { name: "Add destination" }).first().click();
  await expect(page).toHaveURL(/\/portal\/destinations\/new$/);
  await expect(page.getByRole("radio", { name: /Webhook/ }).first()).toBeAttached();
  await expectAccessibleNow(page, "type picker");
  await page.getByText("Webhook", { exact: true }).click();
  // Fields generated from the webhook type's config_fields: URL (required, pattern) and custom headers.
  const url = page.getByLabel(/^URL/);
  await expect(url).toBeVisible();
  await expect(page.getByText("The endpoint receiving the events.")).toBeVisible();
  // The signing secret is generated by the service: no secret field for a tenant.
  await expect(page.getByLabel(/Signing secret/)).toHaveCount(0);

  await page.getByRole("button", { name: "Create destination" }).click();
  await expect(page.getByText("URL is required.")).toBeVisible();
  await expect(url).toHaveAttribute("aria-invalid", "true");
  await url.fill("not a url");
  await page.getByRole("button", { name: "Create destination" }).click();
  await expect(page.getByText("URL does not have the expected format.")).toBeVisible();

  // A mistake only the server knows about: a header it refuses; its message appears by the field.
  await url.fill(`${receiver.url}/hook`);
  await page.getByRole("button", { name: "Add entry" }).click();
  await page.getByLabel("Custom headers: name 1").fill("content-type");
  await page.getByLabel("Custom headers: value 1").fill("text/plain");
  const refused = page.waitForResponse((r) => r.url().endsWith(`/tenants/${tenantA}/destinations`) && r.request().method() === "POST");
  await page.getByRole("button", { name: "Create destination" }).click();
  expect((await refused).status()).toBe(422);
  await expect(page.getByText("config.custom_headers.content-type cannot be set")).toBeVisible();
  await expect(page.getByRole("alert").first()).toContainText("Not created");
  await expectAccessibleNow(page, "create form with errors");
  await page.getByLabel("Custom headers: name 1").fill("x-team");
  await page.getByLabel("Custom headers: value 1").fill("payments");
  await docsScreenshot(page, `${SHOTS}/create-light.png`, { fullPage: true });

  const created = page.waitForResponse((r) => r.url().endsWith(`/tenants/${tenantA}/destinations`) && r.request().method() === "POST");
  await page.getByRole("button", { name: "Create destination" }).click();
  const res = await created;
  expect(res.status()).toBe(201);
  destinationId = (await res.json()).id;
  expect(destinationId).toMatch(/^des_/);
  await page.waitForURL((u) => u.pathname === `/portal/destinations/${destinationId}`);
  await expect(page.getByRole("status").filter({ hasText: "Destination created" })).toBeVisible();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(`${receiver.url}/hook`);
  await expect(page.getByRole("heading", { name: "No attempts yet" })).toBeVisible();
  await expectAccessibleNow(page, "destination page");

  // Stored as the form said.
  const stored = await adminCall("GET", `/tenants/${tenantA}/destinations/${destinationId}`);
  expect(stored.json).toMatchObject({
    type: "webhook",
    topics: ["*"],
    config: { url: `${receiver.url}/hook`, custom_headers: JSON.stringify({ "x-team": "payments" }) },
  });
  await page.goto("/portal");
  await expect(page.getByTestId("destination-list").getByRole("link")).toHaveText([`${receiver.url}/hook`]);
  await expectAccessibleNow(page, "list");
});

test("the operator publishes an event; its attempt appears in the portal with the response as text; a retry adds a manual attempt", async ({ page }) => {
  await enter(page, await portalUrl(tenantA, "light"));
  await page.goto(`/portal/destinations/${destinationId}`);

  // Reveal the secret: it is the one deliveries are signed with.
  await page.getByRole("button", { name: "Reveal" }).click();
  const secret = (await page.getByTestId("secret-value").textContent())!;
  expect(secret).toMatch(/^whsec_[0-9a-f]{64}$/);

  const published = await adminCall("POST", "/publish", { tenant_id: tenantA, topic: "order.created", data: { order: 42, note: "<i>hello</i>" } });
  expect(published.status).toBe(202);
  expect(published.json.destination_ids).toEqual([destinationId]);
  eventId = published.json.id;
  const [delivery] = await receiver.waitFor(1);
  expect(delivery.headers["x-outbound-signature"]).toBe(`v0=${createHmac("sha256", secret).update(delivery.body).digest("hex")}`);
  expect(delivery.headers["x-team"]).toBe("payments");

  await expect(page.getByTestId("attempt").first()).toHaveAttribute("data-status", "success", { timeout: 15_000 });
  attemptId = (await page.getByTestId("attempt").first().getAttribute("data-attempt-id"))!;
  const attempt = page.locator(`[data-testid="attempt"][data-attempt-id="${attemptId}"]`);
  await expect(attempt).toContainText("order.created");
  await attempt.getByRole("button").first().click();
  await expect(attempt.getByTestId("response-status")).toHaveText("200");
  // The response body is shown as text: its markup is not rendered and its script never ran.
  await expect(attempt.getByTestId("response-body")).toHaveText("<b>thanks</b><script>window.__pwned=1</script>");
  expect(await attempt.getByTestId("response-body").locator("b, script").count()).toBe(0);
  expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
  await expect(attempt).toContainText('"note": "<i>hello</i>"');
  await expectAccessibleNow(page, "attempt opened");

  receiver.respond({ status: 503, body: "busy" });
  const retried = page.waitForResponse((r) => r.url().endsWith("/outbound/api/v1/retry"));
  await attempt.getByRole("button", { name: "Retry" }).click();
  expect((await retried).status()).toBe(202);
  await expect(attempt.getByText("Retry queued")).toBeVisible();
  await receiver.waitFor(2);
  await expect(page.getByTestId("attempt")).toHaveCount(2, { timeout: 15_000 });
  const manual = page.getByTestId("attempt").first();
  await expect(manual).toHaveAttribute("data-status", "failed");
  await expect(manual).toContainText("(manual)");
  await expect(manual).toContainText("503");

  // The events tab: the event with its payload and both attempts.
  await page.getByRole("tab", { name: "Events" }).click();
  const event = page.getByTestId("event").first();
  await expect(event).toHaveAttribute("data-event-id", eventId);
  await event.getByRole("button").first().click();
  await expect(event.getByTestId("attempt")).toHaveCount(2);
  await expectAccessibleNow(page, "events tab");

  // The chart's totals (the metrics of the last 24 h).
  await page.reload();
  await expect(page.getByTestId("delivery-totals")).toHaveText("1 delivered · 1 failed", { timeout: 10_000 });
  await docsScreenshot(page, `${SHOTS}/destination-light.png`, { fullPage: true });
});

test("secret rotation, disable and enable, and editing the settings", async ({ page }) => {
  await enter(page, await portalUrl(tenantA));
  // An open circuit breaker shows as a badge (docs/outbound.md "Receiver-driven limits").
  await getPool().query(
    `INSERT INTO delivery_destination_state (product, destination_id, owner_id, breaker_state, breaker_openings) VALUES ('outbound', $1, $2, 'open', 1)
     ON CONFLICT (product, destination_id) DO UPDATE SET breaker_state = 'open', breaker_openings = 1, breaker_changed_at = now()`,
    [destinationId, tenantA],
  );
  await page.goto(`/portal/destinations/${destinationId}`);
  await expect(page.getByTestId("delivery-state")).toContainText("Circuit open");
  await getPool().query("DELETE FROM delivery_destination_state WHERE product = 'outbound' AND destination_id = $1", [destinationId]);
  await page.getByRole("button", { name: "Reveal" }).click();
  const before = await page.getByTestId("secret-value").textContent();
  await page.getByRole("button", { name: "Rotate" }).click();
  const dialog = page.getByRole("dialog", { name: "Rotate the signing secret?" });
  await expect(dialog).toBeVisible();
  await expectAccessibleNow(page, "rotate dialog");
  // The overlap is the tenant's choice: the old secret keeps signing for 1 hour, not the default 24.
  await dialog.getByLabel("Old secret keeps signing for").selectOption({ label: "1 hour" });
  await expect(dialog).toContainText("signatures of both for the next 1 hour");
  const rotatedAt = Date.now();
  await dialog.getByRole("button", { name: "Rotate secret" }).click();
  await expect(dialog).toBeHidden();
  await expect(page.getByTestId("secret-value")).not.toHaveText(before!);
  await expect(page.getByTestId("secret-value")).toHaveText(/^whsec_[0-9a-f]{64}$/);
  await expect(page.getByText("The previous secret keeps signing")).toBeVisible();
  const until = Date.parse((await adminCall("GET", `/tenants/${tenantA}/destinations/${destinationId}`)).json.credentials.previous_secret_invalid_at);
  expect(Math.abs(until - (rotatedAt + 3_600_000))).toBeLessThan(60_000);

  await page.getByRole("button", { name: "Disable" }).click();
  await expect(page.getByRole("button", { name: "Enable" })).toBeVisible();
  expect((await adminCall("GET", `/tenants/${tenantA}/destinations/${destinationId}`)).json.disabled_at).not.toBeNull();
  await page.getByRole("button", { name: "Enable" }).click();
  await expect(page.getByRole("button", { name: "Disable" })).toBeVisible();
  expect((await adminCall("GET", `/tenants/${tenantA}/destinations/${destinationId}`)).json.disabled_at).toBeNull();

  await page.getByLabel("Receive all topics").uncheck();
  await page.getByLabel("Topic names").fill("order.created, order.paid");
  await page.getByLabel(/^URL/).fill(`${receiver.url}/hook2`);
  await page.getByRole("button", { name: "Save settings" }).click();
  await expect(page.getByText("Settings saved.")).toBeVisible();
  const stored = (await adminCall("GET", `/tenants/${tenantA}/destinations/${destinationId}`)).json;
  expect(stored.topics).toEqual(["order.created", "order.paid"]);
  expect(stored.config.url).toBe(`${receiver.url}/hook2`);
});

test("an ed25519 standard_webhook destination shows its public key with a copy button, never the private key", async ({ page }) => {
  const created = await adminCall("POST", `/tenants/${tenantA}/destinations`, {
    type: "standard_webhook",
    topics: ["key.shown"],
    config: { url: `${receiver.url}/sw` },
    credentials: { key_type: "ed25519" },
  });
  expect(created.status).toBe(201);
  const publicKey = created.json.credentials.public_key as string;
  expect(publicKey).toMatch(/^whpk_/);
  await enter(page, await portalUrl(tenantA));
  await page.goto(`/portal/destinations/${created.json.id}`);
  await expect(page.getByTestId("public-key-value")).toHaveText(publicKey);
  await expect(page.getByRole("button", { name: "Copy the public key" })).toBeVisible();
  await expect(page.getByText(/whsk_/)).toHaveCount(0);
  await expectAccessibleNow(page, "public key");
  expect((await adminCall("DELETE", `/tenants/${tenantA}/destinations/${created.json.id}`)).status).toBe(200);
});

test("another tenant's portal shows none of it, and its cookie gets 403/404 for the first tenant's resources", async ({ browser }) => {
  const context = await newClient(browser);
  const page = await context.newPage();
  await enter(page, await portalUrl(tenantB, "dark"));
  await expect(page.getByRole("heading", { name: "No destinations yet" })).toBeVisible();
  await expect(page.getByText(receiver.url)).toHaveCount(0);
  await docsScreenshot(page, `${SHOTS}/empty-dark.png`, { fullPage: true });
  await page.goto(`/portal/destinations/${destinationId}`);
  await expect(page.getByRole("alert").filter({ hasText: "This destination was not found" })).toBeVisible();
  await expectAccessibleNow(page, "other tenant's destination");

  // The same cookie through the API: other tenants are 403, their objects 404, admin-only routes 403.
  const api = (path: string) => `/outbound/api/v1${path}`;
  const csrf = { "x-hookyard-portal": "1" };
  expect((await context.request.get(api(`/tenants/${tenantB}/destinations`))).status()).toBe(200);
  expect((await context.request.get(api(`/tenants/${tenantA}`))).status()).toBe(403);
  expect((await context.request.get(api(`/tenants/${tenantA}/destinations`))).status()).toBe(403);
  expect((await context.request.get(api(`/tenants/${tenantA}/destinations/${destinationId}/attempts`))).status()).toBe(403);
  expect((await context.request.get(api(`/tenants/${tenantB}/destinations/${destinationId}`))).status()).toBe(404);
  expect((await context.request.get(api(`/events/${eventId}`))).status()).toBe(404);
  expect((await context.request.get(api(`/attempts/${attemptId}`))).status()).toBe(404);
  expect((await context.request.get(api(`/attempts?tenant_id=${tenantA}`))).status()).toBe(403);
  const events = await context.request.get(api("/events"));
  expect((await events.json()).models).toEqual([]);
  const attempts = await context.request.get(api("/attempts"));
  expect((await attempts.json()).models).toEqual([]);
  expect((await context.request.post(api("/retry"), { headers: csrf, data: { event_id: eventId, destination_id: destinationId } })).status()).toBe(404);
  expect((await context.request.get(api(`/tenants/${tenantB}/token`))).status()).toBe(403);
  expect((await context.request.get(api(`/tenants/${tenantB}/portal`))).status()).toBe(403);
  expect((await context.request.post(api("/publish"), { headers: csrf, data: { tenant_id: tenantB, topic: "x", data: {} } })).status()).toBe(403);
  // Unsafe requests on the cookie need the portal's CSRF header, and a same-origin Origin.
  const noCsrf = await context.request.post(api(`/tenants/${tenantB}/destinations`), {
    data: { type: "webhook", topics: "*", config: { url: "https://example.com/x" } },
  });
  expect(noCsrf.status()).toBe(403);
  expect((await noCsrf.json()).message).toBe("cross-site request refused");
  expect(
    (
      await context.request.post(api(`/tenants/${tenantB}/destinations`), {
        headers: { ...csrf, origin: "https://evil.example" },
        data: { type: "webhook", topics: "*", config: { url: "https://example.com/x" } },
      })
    ).status(),
  ).toBe(403);
  expect((await adminCall("GET", `/tenants/${tenantB}/destinations`)).json).toEqual([]);
  await context.close();
});

test("dark theme and a phone's width", async ({ browser }) => {
  const context = await newClient(browser, { viewport: { width: 390, height: 844 } });
  const page = await context.newPage();
  await enter(page, await portalUrl(tenantA, "dark"));
  await expect(page.locator("[data-portal]")).toHaveAttribute("data-theme", "dark");
  const bg = await page.locator("[data-portal]").evaluate((el) => getComputedStyle(el).backgroundColor);
  expect(bg).not.toBe("rgb(250, 250, 250)");
  await expect(page.getByTestId("destination-list")).toBeVisible();
  // Nothing wider than the phone.
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  await expectAccessibleNow(page, "list, dark, 390 px");
  await docsScreenshot(page, `${SHOTS}/list-dark-390.png`, { fullPage: true });
  await page.goto(`/portal/destinations/${destinationId}`);
  await page.getByTestId("attempt").first().getByRole("button").first().click();
  await expect(page.getByTestId("response-status").first()).toBeVisible();
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  await expectAccessibleNow(page, "destination, dark, 390 px");
  await docsScreenshot(page, `${SHOTS}/destination-dark-390.png`, { fullPage: true });
  await page.goto("/portal/destinations/new");
  await page.getByText("Webhook", { exact: true }).click();
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  await expectAccessibleNow(page, "create, dark, 390 px");
  await context.close();
});

test("keyboard: the list, the type picker and the form work without a mouse", async ({ page }) => {
  await enter(page, await portalUrl(tenantA, "light"));
  await page.keyboard.press("Tab");
  await expect(page.getByRole("link", { name: "Skip to content" })).toBeFocused();
  await page.goto("/portal/destinations/new");
  await page.getByRole("radio").first().focus();
  await page.keyboard.press("Space");
  await expect(page.getByLabel(/^URL/)).toBeVisible();
  await page.getByLabel(/^URL/).focus();
  await page.keyboard.type(`${receiver.url}/kbd`);
  await page.keyboard.press("Enter");
  await page.waitForURL(/\/portal\/destinations\/des_/);
  // Delete it with the confirmation dialog, by keyboard; Escape cancels first.
  await page.getByRole("button", { name: "Delete" }).focus();
  await page.keyboard.press("Enter");
  const dialog = page.getByRole("dialog", { name: "Delete this destination?" });
  await expect(dialog).toBeVisible();
  await page.keyboard.press("Escape");
  await expect(dialog).toBeHidden();
  await page.getByRole("button", { name: "Delete" }).click();
  await expectAccessibleNow(page, "delete dialog");
  await dialog.getByRole("button", { name: "Delete destination" }).click();
  await page.waitForURL((u) => u.pathname === "/portal");
  await expect(page.getByTestId("destination-list").getByRole("link")).toHaveCount(1);
});

test("branding: PORTAL_ORGANIZATION_NAME, PORTAL_BRAND_COLOR and PORTAL_LOGO_URL change the portal's look", async ({ browser }) => {
  test.setTimeout(90_000);
  const branded = await startServer({
    DATABASE_URL: process.env.DATABASE_URL!,
    TRUST_PROXY: "true",
    WORKER_ENABLED: "false",
    PORTAL_ORGANIZATION_NAME: "Acme Logistics",
    PORTAL_BRAND_COLOR: "#0f766e",
    PORTAL_LOGO_URL: `${BASE_URL}/favicon.svg`,
  });
  try {
    const res = await fetch(`${branded.url}/outbound/api/v1/tenants/${tenantA}/portal`, { headers: { authorization: `Bearer ${admin}` } });
    const { redirect_url } = (await res.json()) as { redirect_url: string };
    expect(redirect_url.startsWith(`${branded.url}/portal?token=`)).toBe(true);
    const context = await newClient(browser, { baseURL: branded.url });
    const page = await context.newPage();
    await enter(page, redirect_url);
    await expect(page.locator("header")).toContainText("Acme Logistics");
    await expect(page).toHaveTitle(/Acme Logistics/);
    await expect(page.locator("header img")).toHaveAttribute("src", `${BASE_URL}/favicon.svg`);
    await expect(page.locator("[data-portal]")).toHaveAttribute("data-theme", "system");
    const add = page.getByRole("link", { name: "Add destination" });
    expect(await add.evaluate((el) => getComputedStyle(el).backgroundColor)).toBe("rgb(15, 118, 110)");
    await expectAccessibleNow(page, "branded list");
    await docsScreenshot(page, `${SHOTS}/branded-light.png`, { fullPage: true });
    await context.close();
  } finally {
    await branded.stop();
  }
});

test("a garbage or expired link, or no session, shows a clear page; nothing crashes or leaks", async ({ page, context }) => {
  let res = await page.goto("/portal?token=garbage-token-value-xxxxxxxx");
  expect(res?.status()).toBe(200);
  await expect(page).toHaveURL(/\/portal\/signed-out\?reason=invalid$/);
  await expect(page.getByRole("heading", { name: "This portal link is not valid" })).toBeVisible();
  expect((await context.cookies()).find((c) => c.name === "hy_portal" && c.value)).toBeUndefined();
  await expectAccessibleNow(page, "invalid link");

  const expired = await tenantToken(tenantA, Date.now() - 25 * 3600_000);
  res = await page.goto(`/portal?token=${expired}&theme=dark`);
  expect(res?.status()).toBe(200);
  await expect(page.getByRole("heading", { name: "This portal link has expired" })).toBeVisible();
  expect(page.url()).not.toContain(expired);
  await expectAccessibleNow(page, "expired link");
  await docsScreenshot(page, `${SHOTS}/expired-light.png`);

  await page.goto("/portal");
  await expect(page.getByRole("heading", { name: "You are not signed in to the portal" })).toBeVisible();
  await page.goto(`/portal/destinations/${destinationId}`);
  await expect(page.getByRole("heading", { name: "You are not signed in to the portal" })).toBeVisible();
  await expect(page.getByText(receiver.url)).toHaveCount(0);
  // An expired token in the cookie itself is refused by the API.
  await context.addCookies([{ name: "hy_portal", value: expired, url: BASE_URL }]);
  expect((await context.request.get(`/outbound/api/v1/tenants/${tenantA}/destinations`)).status()).toBe(401);
  await page.goto("/portal");
  await expect(page.getByRole("heading", { name: "This portal link has expired" })).toBeVisible();
});

test("an aws_s3 destination created from its generated form: defaults prefilled, a bad key template refused by its field", async ({ page }) => {
  const tenant = `portal-s3-${run}`;
  expect((await adminCall("PUT", `/tenants/${tenant}`)).status).toBe(201);
  await enter(page, await portalUrl(tenant, "dark"));
  await page.goto("/portal/destinations/new");
  await page.getByText("AWS S3", { exact: true }).click();
  await expect(page.getByLabel(/^Key template/)).toHaveValue("{time}_{event_id}.json");
  await expect(page.getByLabel(/^Storage class/)).toHaveValue("STANDARD");
  await page.getByLabel(/^Bucket/).fill("orders-archive");
  await page.getByLabel(/^Region/).fill("eu-west-1");
  await page.getByLabel(/^Key template/).fill("{topic}/{nope}.json");
  await page.getByLabel(/^Storage class/).selectOption("GLACIER_IR");
  await page.getByLabel(/^Access key id/).fill("AKIAEXAMPLEKEY");
  await page.getByLabel(/^Secret access key/).fill("wJalrXUtnFEMIEXAMPLE");
  await page.getByRole("button", { name: "Create destination" }).click();
  await expect(page.getByText("Key template does not have the expected format.")).toBeVisible();
  await page.getByLabel(/^Key template/).fill("{topic}/{date}/{event_id}.json");
  await docsScreenshot(page, "test-results/portal-aws-s3-dark.png", { fullPage: true });
  const created = page.waitForResponse((r) => r.url().endsWith(`/tenants/${tenant}/destinations`) && r.request().method() === "POST");
  await page.getByRole("button", { name: "Create destination" }).click();
  const res = await created;
  expect(res.status()).toBe(201);
  const stored = await adminCall("GET", `/tenants/${tenant}/destinations/${(await res.json()).id}`);
  expect(stored.json).toMatchObject({
    type: "aws_s3",
    target: "s3://orders-archive",
    config: { bucket: "orders-archive", region: "eu-west-1", key_template: "{topic}/{date}/{event_id}.json", storage_class: "GLACIER_IR" },
    credentials: { key: "AKIA**********", secret: "wJal****************" },
  });
});
