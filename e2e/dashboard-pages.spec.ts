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
import { expectAccessible, screenshots, signedIn } from "./support/dashboard-pages";
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
    await screenshots(page, "connections-empty");

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
    await screenshots(page, "connection-form-error");

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
    await screenshots(page, "connection-edit");

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
    await screenshots(page, "connections");
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
  await screenshots(page, "transformation-run");

  await page.getByTestId("transformation-code").fill(`addHandler("transform", (request) => { throw new Error("no order id"); });`);
  await page.getByTestId("run-transformation").click();
  await expect(page.getByTestId("run-level")).toHaveText("Failed");
  await expect(page.getByTestId("run-error")).toContainText("no order id");
  await expectAccessible(page);
  await screenshots(page, "transformation-error");
});

test("issues: a trigger and a failing receiver open an issue; it is resolved in the browser", async ({ page }) => {
  const receiver = await startReceiver();
  receiver.respond({ status: 503, body: "down" });
  try {
    const team = await signedIn(page);
    await page.goto("/dashboard/issues");
    await expect(page.getByText("No issue triggers yet")).toBeVisible();
    await expectAccessible(page);
    await screenshots(page, "issues-empty");

    await page.getByRole("link", { name: "Create an issue trigger" }).click();
    await page.getByTestId("trigger-name").fill("failed deliveries");
    await page.getByTestId("create-trigger").click();
    await expect(page.getByTestId("trigger-row")).toHaveCount(1);
    await expect(page.getByTestId("trigger-row")).toContainText("Any failed attempt · *");
    await expectAccessible(page);
    await screenshots(page, "issue-triggers");

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
    await screenshots(page, "issues");

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
    await screenshots(page, "issue-detail");
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
    await expectAccessible(page);

    await page.getByTestId("new-tenant-id").fill(tenant);
    await page.getByTestId("create-tenant").click();
    await expect(page).toHaveURL(new RegExp(`/dashboard/outbound/${tenant}$`));
    await expect(page.getByRole("heading", { name: tenant })).toBeVisible();
    await expect(page.getByText("No destinations")).toBeVisible();
    await expect(page.getByText("No events yet")).toBeVisible();

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

    const { key } = await createOutboundKey(`dash-${tenant}`);
    const pub = await fetch(`${BASE_URL}/outbound/api/v1/publish`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ tenant_id: tenant, topic: "user.created", data: { user_id: "u_1" } }),
    });
    expect(pub.status).toBe(202);
    const { id: eventId } = (await pub.json()) as { id: string };
    await receiver.waitFor(1, 20_000);
    await page.reload();
    await expect(page.getByTestId("tenant-event")).toHaveCount(1);
    await expect(page.getByTestId("tenant-event")).toContainText(eventId);
    await expect(page.getByTestId("tenant-attempt")).toHaveCount(1);
    await expect(page.getByTestId("tenant-attempt").first()).toHaveAttribute("data-status", "success");

    await page.getByRole("button", { name: `Retry event ${eventId}` }).click();
    await expect(page.getByText("Retry queued.")).toBeVisible();
    await receiver.waitFor(2, 20_000);
    await expect(page.getByTestId("tenant-attempt")).toHaveCount(2, { timeout: 20_000 });
    await expect(page.getByTestId("tenant-chart")).toContainText("2 attempts", { timeout: 40_000 });
    await expectAccessible(page);
    await screenshots(page, "outbound-tenant");

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
    await page.getByTestId("tenant-search").fill(tenant);
    await expect(page.getByTestId("tenant-row")).toHaveCount(1);
    await expect(page.getByTestId("tenant-row")).toContainText("1");
    await expectAccessible(page);
    await screenshots(page, "outbound");
    // The kit's styled dialog asks, never window.confirm (docs/dashboard.md "One kit").
    page.once("dialog", (d) => void d.dismiss().then(() => expect.soft(d.message(), "a native dialog appeared").toBe("")));
    await page.getByRole("button", { name: `Delete tenant ${tenant}` }).click();
    await page
      .getByRole("dialog", { name: `Delete tenant “${tenant}” and all its destinations?` })
      .getByRole("button", { name: "Delete tenant" })
      .click();
    await expect(page.getByText(`No tenant “${tenant}”`)).toBeVisible();
  } finally {
    await receiver.close();
  }
});
