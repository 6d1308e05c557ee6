/**
 * The signed-in dashboard's Connections, Issues and Outbound pages (docs/dashboard.md) in a real browser against
 * the real server and PostgreSQL: a connection made in the browser delivers to a real local receiver, an
 * issue opened by real failures is resolved in the browser, an outbound tenant made in the browser shows
 * its destinations, events and portal link. Every page passes axe (no serious or critical violation) and is
 * photographed into docs/dashboard/.
 */
import { randomBytes } from "node:crypto";
import { createOutboundKey } from "@/lib/outbound/auth";
import { expect, test } from "./support/browser";
import { BASE_URL } from "./support/client";
import { expectAccessible } from "./support/accessibility";
import { fitsPhone, signedIn } from "./support/dashboard-pages";
import { api } from "./support/gateway";
import { eventually, startReceiver } from "./support/receiver";
import { getPool } from "@/lib/db/pool";

test.describe.configure({ timeout: 120_000 });

test("connections: create in the browser, a request to the source URL reaches the receiver and shows as successful", async ({ page }) => {
  const receiver = await startReceiver();
  try {
    const team = await signedIn(page);
    await page.goto("/dashboard/connections");
    await expect(page.getByText("No connections yet")).toBeVisible();
    await expectAccessible(page);
    await fitsPhone(page, "connections-empty");

    await page.getByTestId("new-connection").click();
    await expect(page.getByRole("heading", { name: "New connection" })).toBeVisible();
    await page.getByTestId("connection-name").fill("orders");
    await page.getByTestId("source-name").fill("shop");
    await page.getByLabel("Verification").selectOption("HMAC");
    await page.getByLabel("Header name").fill("x-signature");
    await page.getByLabel("Signing secret").fill("s3cret");
    await page.getByLabel("Verification").selectOption("");
    await page.getByTestId("destination-name").fill("orders-service");
    await page.getByLabel("Rate limit").fill("5");
    await page.getByTestId("add-rule-filter").click();
    await page.getByTestId("add-rule-retry").click();
    await page.getByTestId("rule").nth(0).getByLabel("Body").fill('{"kind": "order"}');
    // The retry rule moves above the filter with the keyboard-reachable arrow.
    await page.getByRole("button", { name: "Move rule 2 up" }).click();
    await expect(page.getByTestId("rule").nth(0)).toHaveAttribute("data-type", "retry");
    await expectAccessible(page);

    // No destination URL: the API's 422 shows next to the URL field.
    await page.getByTestId("save-connection").click();
    const urlField = page.getByTestId("destination-url");
    await expect(urlField).toHaveAttribute("aria-invalid", "true");
    await expect(page.getByText(/requires `config.url`/).first()).toBeVisible();
    await fitsPhone(page, "connection-form-error");

    await urlField.fill(`${receiver.url}/hooks`);
    await page.getByTestId("save-connection").click();
    await expect(page).toHaveURL(/\/dashboard\/connections\/web_[^/?]+\?created=1/);
    const sourceUrl = (await page.getByTestId("source-url").textContent())!.trim();
    expect(sourceUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/e\//);
    await expect(page.getByText("No events yet")).toBeVisible();

    // A request as a sender would make it: filtered out (kind != order), then one that passes.
    const skipped = await fetch(sourceUrl, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ kind: "refund" }) });
    expect(skipped.status).toBe(200);
    const sent = await fetch(`${sourceUrl}/new?x=1`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ kind: "order", id: 42 }),
    });
    expect(sent.status).toBe(200);
    const [got] = await receiver.waitFor(1, 20_000);
    expect(JSON.parse(got.body.toString())).toEqual({ kind: "order", id: 42 });
    expect(got.url).toBe("/hooks/new?x=1");
    await expect(page.getByTestId("connection-event")).toHaveCount(1, { timeout: 20_000 });
    await expect(page.getByTestId("connection-event").first()).toHaveAttribute("data-status", "SUCCESSFUL", { timeout: 20_000 });
    await expect(page.getByTestId("connection-event").first().getByText("200")).toBeVisible();
    expect(receiver.received).toHaveLength(1);
    await expectAccessible(page);
    await fitsPhone(page, "connection-edit");

    // Edit: the destination's rate limit (PUT /destinations/{id}) and one more rule (PUT /connections/{id}).
    const connectionId = new URL(page.url()).pathname.split("/").pop()!;
    await page.getByLabel("Rate limit").fill("10");
    await page.getByTestId("add-rule-delay").click();
    await page.getByTestId("save-connection").click();
    await expect(page.getByRole("status").filter({ hasText: "Saved." })).toBeVisible();
    const after = await api(team, "GET", `/2025-07-01/connections/${connectionId}`);
    expect(after.json.destination.config.rate_limit).toBe(10);
    expect(after.json.rules.map((r: { type: string }) => r.type)).toEqual(["retry", "filter", "delay"]);
    expect(after.json.rules[1].body).toEqual({ kind: "order" });

    // The destination's receiver-driven limits show as badges (docs/pipeline.md "Receiver-driven limits"): a slowed pace.
    const destinationId = after.json.destination.id;
    await getPool().query(
      `INSERT INTO delivery_destination_state (product, destination_id, owner_id, pace, pace_origin, pace_changed_at) VALUES ('gateway', $1, $2, 4, 8, now())
       ON CONFLICT (product, destination_id) DO UPDATE SET pace = 4, pace_origin = 8, pace_changed_at = now()`,
      [destinationId, team.teamId],
    );
    await page.reload();
    await expect(page.getByTestId("delivery-state")).toContainText("Pace 4/s");
    await getPool().query("DELETE FROM delivery_destination_state WHERE product = 'gateway' AND destination_id = $1", [destinationId]);

    // Pause from the list, then unpause; the state shows in the row.
    await page.goto("/dashboard/connections");
    const row = page.getByTestId("connection-row").filter({ hasText: "orders" });
    await expect(row.getByTestId("source-url")).toHaveText(sourceUrl);
    await row.getByRole("button", { name: "Pause orders" }).click();
    // Exact: the buttons' text "Unpause" + "Disable" also contains "paused".
    await expect(row.getByText("Paused", { exact: true })).toBeVisible();
    await row.getByRole("button", { name: "Unpause orders" }).click();
    await expect(row.getByText("Active", { exact: true })).toBeVisible();
    await expectAccessible(page);
    await fitsPhone(page, "connections");
  } finally {
    await receiver.close();
  }
});

test("transformations: a test run shows the output request, console lines and errors", async ({ page }) => {
  await signedIn(page);
  await page.goto("/dashboard/connections/transformations");
  await page.getByTestId("transformation-name").fill("tag");
  await page
    .getByTestId("transformation-code")
    .fill(
      `addHandler("transform", (request) => {\n  console.log("<b>seen</b>", request.body.id);\n  request.headers["x-tag"] = process.env.TAG;\n  return request;\n});`,
    );
  await page.getByLabel("Environment (process.env)").fill("TAG=blue");
  await page.getByTestId("sample-body").fill('{"id": "<img src=x onerror=alert(1)>"}');
  await page.getByTestId("run-transformation").click();
  await expect(page.getByTestId("run-level")).toHaveText("OK · info");
  const output = JSON.parse((await page.getByTestId("run-output").textContent())!);
  expect(output.headers["x-tag"]).toBe("blue");
  expect(output.body).toEqual({ id: "<img src=x onerror=alert(1)>" });
  // Captured text is text: no element was made from it.
  await expect(page.getByTestId("run-console")).toContainText("<b>seen</b> <img src=x onerror=alert(1)>");
  await expect(page.locator("img[src=x]")).toHaveCount(0);
  await page.getByTestId("save-transformation").click();
  await expect(page.getByRole("status")).toHaveText("Saved tag.");
  await expect(page.getByTestId("run-output")).toBeVisible();
  await expect(page.getByTestId("transformation-select")).toHaveValue(/^trs_/);
  await expectAccessible(page);
  await fitsPhone(page, "transformation-run");

  await page.getByTestId("transformation-code").fill(`addHandler("transform", (request) => { throw new Error("no order id"); });`);
  await page.getByTestId("run-transformation").click();
  await expect(page.getByTestId("run-level")).toHaveText("Failed");
  await expect(page.getByTestId("run-error")).toContainText("no order id");
  await expectAccessible(page);
  await fitsPhone(page, "transformation-error");
});

test("issues: a trigger and a failing receiver open an issue; it is resolved in the browser", async ({ page }) => {
  const receiver = await startReceiver();
  receiver.respond({ status: 503, body: "down" });
  try {
    const team = await signedIn(page);
    await page.goto("/dashboard/issues");
    await expect(page.getByText("No issue triggers yet")).toBeVisible();
    await expectAccessible(page);
    await fitsPhone(page, "issues-empty");

    await page.getByRole("link", { name: "Create an issue trigger" }).click();
    await page.getByTestId("trigger-name").fill("failed deliveries");
    await page.getByTestId("create-trigger").click();
    await expect(page.getByTestId("trigger-row")).toHaveCount(1);
    await expect(page.getByTestId("trigger-row")).toContainText("Any failed attempt · *");
    await expectAccessible(page);
    await fitsPhone(page, "issue-triggers");

    const created = await api(team, "POST", "/2025-07-01/connections", {
      name: "billing",
      source: { name: "billing-in" },
      destination: { name: "billing-out", config: { url: receiver.url } },
      rules: [{ type: "retry", strategy: "linear", count: 0, interval: 1000 }],
    });
    expect(created.status).toBe(200);
    const res = await fetch(created.json.source.url, { method: "POST", headers: { "content-type": "application/json" }, body: '{"invoice":7}' });
    expect(res.status).toBe(200);
    await receiver.waitFor(1, 20_000);

    await page.goto("/dashboard/issues");
    const row = page.getByTestId("issue-row");
    await eventually(async () => {
      if ((await row.count()) > 0) return true;
      await page.reload();
      await page.waitForTimeout(1000);
      return false;
    }, 40_000);
    await expect(row.first()).toContainText("HTTP 503 delivering to billing-in -> billing");
    await expectAccessible(page);
    await fitsPhone(page, "issues");

    await row.first().focus();
    await page.keyboard.press("Enter");
    await expect(page).toHaveURL(/\/dashboard\/issues\/iss_/);
    const issueId = page.url().split("/").pop()!;
    await expect(page.getByTestId("issue-event")).toHaveCount(1, { timeout: 20_000 });
    await expect(page.getByTestId("issue-event").first()).toContainText("503");
    await expect(page.getByTestId("issue-status")).toHaveText("OPENED");
    await page.getByTestId("issue-acknowledge").click();
    await expect(page.getByTestId("issue-status")).toHaveText("ACKNOWLEDGED");
    await expectAccessible(page);
    await fitsPhone(page, "issue-detail");
    await page.getByTestId("issue-resolve").click();
    await expect(page.getByTestId("issue-status")).toHaveText("RESOLVED");
    const stored = await api(team, "GET", `/2025-07-01/issues/${issueId}`);
    expect(stored.json.status).toBe("RESOLVED");

    await page.goto("/dashboard/issues");
    await expect(page.getByText("No opened issues")).toBeVisible();
  } finally {
    await receiver.close();
  }
});

test("outbound: create a tenant, see its destinations, events and attempts, retry, open its portal", async ({ page }) => {
  const receiver = await startReceiver();
  try {
    await signedIn(page);
    const tenant = `acme-${randomBytes(3).toString("hex")}`;
    await page.goto("/dashboard/outbound");
    // The failing destinations and the tenants loaded (a busy machine answers slowly), then axe.
    await expect(page.getByLabel("Loading", { exact: true })).toHaveCount(0, { timeout: 20_000 });
    await expectAccessible(page);

    await page.getByTestId("new-tenant-id").fill(tenant);
    await page.getByTestId("create-tenant").click();
    await expect(page).toHaveURL(new RegExp(`/dashboard/outbound/${tenant}$`));
    await expect(page.getByRole("heading", { name: tenant })).toBeVisible();
    // A busy machine loads the tenant's lists slowly: a generous bound for the first answers.
    await expect(page.getByText("No destinations")).toBeVisible({ timeout: 20_000 });
    await expect(page.getByText("No events yet")).toBeVisible({ timeout: 20_000 });

    // A bad URL: the outbound API's validation message is shown next to the field.
    await page.getByTestId("outbound-destination-url").fill("not a url");
    await page.getByTestId("add-outbound-destination").click();
    await expect(page.getByTestId("outbound-destination-url")).toHaveAttribute("aria-invalid", "true");

    await page.getByTestId("outbound-destination-url").fill(`${receiver.url}/in`);
    await page.getByTestId("add-outbound-destination").click();
    await expect(page.getByTestId("tenant-destination")).toHaveCount(1);
    await expect(page.getByTestId("tenant-destination")).toContainText(`${receiver.url}/in`);
    // Topics "*" come back as ["*"] (the API stores "*" as a one-element list): shown as "all".
    await expect(page.getByTestId("tenant-destination-topics")).toHaveText("all");

    // The receiver fails the first delivery with a body that must show as text, then accepts.
    receiver.respond({ status: 500, body: "<b>down</b> for maintenance" });
    const { key } = await createOutboundKey(`dash-${tenant}`);
    const pub = await fetch(`${BASE_URL}/outbound/api/v1/publish`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ tenant_id: tenant, topic: "user.created", data: { user_id: "u_1" } }),
    });
    expect(pub.status).toBe(202);
    const { id: eventId } = (await pub.json()) as { id: string };
    await receiver.waitFor(1, 20_000);
    receiver.respond({ status: 200, body: "ok" });
    await page.reload();
    await expect(page.getByTestId("tenant-event")).toHaveCount(1, { timeout: 20_000 });
    await expect(page.getByTestId("tenant-event")).toContainText(eventId);
    const failed = page.locator('[data-testid="tenant-attempt"][data-status="failed"]').first();
    await expect(failed).toBeVisible({ timeout: 20_000 });
    // The destination's health: its first attempt failed (an automatic retry may have succeeded meanwhile: 50%).
    await expect(page.getByTestId("tenant-destination").getByTestId("health-badge")).toHaveText(/^Failing · (100|50)% failed$/);

    // The attempt opens in place: the response (as text, not markup) and the payload.
    await failed.getByRole("button", { name: /^Details of attempt/ }).click();
    await expect(page.getByTestId("attempt-response-status").first()).toHaveText("500", { timeout: 20_000 });
    await expect(page.getByTestId("attempt-response-body").first()).toHaveText("<b>down</b> for maintenance");
    await expect(page.getByTestId("attempt-payload").first()).toContainText('"user_id": "u_1"');
    await page
      .getByTestId("tenant-event")
      .getByRole("button", { name: `Payload of event ${eventId}` })
      .click();
    await expect(page.getByTestId("event-payload")).toContainText('"user_id": "u_1"', { timeout: 20_000 });

    await failed.getByRole("button", { name: `Retry event ${eventId}` }).click();
    await expect(page.getByText("Retry queued", { exact: false })).toBeVisible();
    await receiver.waitFor(2, 20_000);
    const delivered = page.locator('[data-testid="tenant-attempt"][data-status="success"]').first();
    await expect(delivered).toBeVisible({ timeout: 20_000 });
    // No Retry on a delivered attempt.
    await expect(delivered.getByRole("button", { name: /^Retry/ })).toHaveCount(0);
    // "Failed" narrows the list to failed attempts.
    await page.getByTestId("attempts-failed-only").click();
    await expect(page.locator('[data-testid="tenant-attempt"][data-status="success"]')).toHaveCount(0);
    await expect(page.locator('[data-testid="tenant-attempt"][data-status="failed"]').first()).toBeVisible();
    await page.getByTestId("attempts-all").click();
    await expect(page.getByTestId("tenant-chart")).toContainText("attempts", { timeout: 40_000 });
    await expectAccessible(page);
    await fitsPhone(page, "outbound-tenant");

    // The popup passes /portal?token=… on to /portal/enter and then /portal within milliseconds: watch its first request.
    const opened = page.context().waitForEvent("request", (r) => /\/portal\?token=/.test(r.url()));
    const [popup] = await Promise.all([page.waitForEvent("popup"), page.getByTestId("open-portal").click()]);
    // The redirect URL (with its token) opens; the token is exchanged for the portal cookie and leaves the address
    // bar; the portal, in the same browser as the signed-in dashboard, shows this tenant's destination.
    expect(new URL((await opened).url()).searchParams.get("token")).toBeTruthy();
    await popup.waitForURL((url) => url.pathname === "/portal");
    const portal = new URL(popup.url());
    expect(portal.origin).toBe(new URL(BASE_URL).origin);
    expect(portal.searchParams.get("token")).toBeNull();
    await expect(popup.getByText(`${receiver.url}/in`).first()).toBeVisible();
    await popup.close();

    await page.goto("/dashboard/outbound");
    // The cross-tenant failures: this tenant's destination is among them.
    await expect(page.locator(`[data-testid="failing-destination"][data-tenant="${tenant}"]`)).toBeVisible({ timeout: 20_000 });
    // Search: any part of the id, in either case.
    await page.getByTestId("tenant-search").fill(tenant.slice(2).toUpperCase());
    await expect(page.getByTestId("tenant-row")).toHaveCount(1, { timeout: 20_000 });
    await expect(page.getByTestId("tenant-row")).toContainText("1");
    await expect(page.getByLabel("Loading", { exact: true })).toHaveCount(0, { timeout: 20_000 });
    await expect(page.getByTestId("tenant-row").getByTestId("health-line")).toContainText(/\d+ of \d+ attempts failed in the last 24 hours · last failure/);
    await expectAccessible(page);
    await fitsPhone(page, "outbound");

    // Deleting is on the tenant's page, apart from Open portal, behind a dialog (Escape cancels).
    await expect(page.getByTestId("tenant-row").getByRole("button")).toHaveCount(0);
    await page.getByTestId("tenant-row").getByRole("link", { name: tenant }).click();
    await expect(page.getByTestId("open-portal")).toBeVisible();
    const danger = page.getByTestId("tenant-danger-zone");
    await danger.getByRole("button", { name: "Delete tenant" }).focus();
    await page.keyboard.press("Enter");
    const dialog = page.getByRole("dialog", { name: `Delete tenant “${tenant}”?` });
    await expect(dialog).toBeVisible();
    await expectAccessible(page);
    await page.keyboard.press("Escape");
    await expect(dialog).toBeHidden();
    await danger.getByRole("button", { name: "Delete tenant" }).click();
    await dialog.getByRole("button", { name: "Delete tenant" }).click();
    await expect(page).toHaveURL(/\/dashboard\/outbound$/);
    await page.getByTestId("tenant-search").fill(tenant);
    await expect(page.getByText(`No tenant “${tenant}”`)).toBeVisible();
  } finally {
    await receiver.close();
  }
});

test("outbound: a tenant's attempts page with Newer and Older; its failure rate on the list and among the failing destinations", async ({ page }) => {
  const tenant = `paged-${randomBytes(3).toString("hex")}`;
  const { key } = await createOutboundKey(`dash-${tenant}`);
  const call = (method: string, path: string, body?: unknown) =>
    fetch(`${BASE_URL}/outbound/api/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  expect((await call("PUT", `/tenants/${tenant}`)).status).toBe(201);
  const dest = (await (
    await call("POST", `/tenants/${tenant}/destinations`, { type: "webhook", topics: "*", config: { url: "https://x.example/h" } })
  ).json()) as {
    id: string;
  };
  // 25 attempts of the last hour, the 20 oldest failed.
  await getPool().query(
    `INSERT INTO outbound_attempts (id, event_id, tenant_id, destination_id, destination_type, topic, status, code, attempt_number, manual, time)
     SELECT 'atm_p' || $1 || '_' || g, 'evt_p' || g, $1, $2, 'webhook', 't', CASE WHEN g <= 20 THEN 'failed' ELSE 'success' END,
            CASE WHEN g <= 20 THEN '500' ELSE '200' END, 0, false, now() - interval '40 minutes' + g * interval '1 second'
       FROM generate_series(1, 25) g`,
    [tenant, dest.id],
  );
  await signedIn(page);
  await page.goto(`/dashboard/outbound/${tenant}`);
  await expect(page.getByTestId("tenant-attempt")).toHaveCount(20, { timeout: 20_000 });
  await expect(page.getByTestId("tenant-attempt").first()).toHaveAttribute("data-status", "success");
  await page.getByTestId("attempts-older").click();
  await expect(page.getByTestId("tenant-attempt")).toHaveCount(5);
  await expect(page.locator('[data-testid="tenant-attempt"][data-status="success"]')).toHaveCount(0);
  await page.getByRole("navigation", { name: "Attempts pages" }).getByRole("button", { name: "Newer" }).click();
  await expect(page.getByTestId("tenant-attempt")).toHaveCount(20);
  await expect(page.getByTestId("tenant-destination").getByTestId("health-badge")).toHaveText("Failing · 80% failed");

  await page.goto("/dashboard/outbound");
  // The lists loaded: the page is hydrated, so the search typed next is the page's own (typed before, it is lost).
  await expect(page.getByLabel("Loading", { exact: true })).toHaveCount(0, { timeout: 20_000 });
  await page.getByTestId("tenant-search").fill(tenant);
  await expect(page.getByTestId("tenant-row").getByTestId("health-badge")).toHaveText("Failing · 80% failed", { timeout: 20_000 });
  await expect(page.getByTestId("tenant-row").getByTestId("health-line")).toContainText("20 of 25 attempts failed");
  const failing = page.locator(`[data-testid="failing-destination"][data-tenant="${tenant}"]`);
  await expect(page.getByTestId("failing-destination").first()).toBeVisible({ timeout: 20_000 });
  const more = page.getByTestId("failing-destinations").getByRole("button", { name: "Show more" });
  if (await more.isVisible()) await more.click();
  await expect(failing).toContainText("https://x.example/h");
  await failing.getByRole("link", { name: tenant }).click();
  await expect(page).toHaveURL(new RegExp(`/dashboard/outbound/${tenant}$`));
});
