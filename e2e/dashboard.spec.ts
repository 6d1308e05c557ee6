/**
 * Browser end-to-end tests of the signed-in dashboard (docs/dashboard.md) in Debian's Chromium, against the test
 * server and real PostgreSQL: sign-in and refusal, the bulk retry flow after a receiver outage (filter in
 * the events explorer → "Retry all N matching" → plan → confirm → progress bar to completion → the
 * receiver got them), and cancelling a running operation. Every page is checked with axe (no serious or
 * critical violation) and screenshotted into docs/dashboard/ (light, dark, 390 px) by `npm run screenshots`.
 */
import type { Page } from "@playwright/test";
import { createApiKey } from "@/lib/teams/api-keys";
import { createTeam } from "@/lib/teams/bootstrap";
import { createSignInToken, createUser } from "@/lib/dashboard/users";
import { getSigningSecrets } from "@/lib/teams/signing-secret";
import { closePool } from "@/lib/db/pool";
import { BASE_URL, closeDb, db, expect, test } from "./support/browser";
import { expectAccessibleNow, setColorScheme } from "./support/accessibility";
import { type Receiver, startReceiver } from "./support/receiver";
import { docsScreenshot } from "./support/docs-screenshots";

const V = `${BASE_URL}/api/2025-07-01`;
const PASSWORD = "correct horse battery";

test.afterAll(async () => {
  await closeDb();
  await closePool();
});

/** A team with an API key and a dashboard user of it. */
async function setup(name: string) {
  const { teamId } = await createTeam(name);
  const { key } = await createApiKey(teamId, "test");
  const email = `${name.replace(/\W/g, "")}-${Date.now()}@example.test`;
  await createUser(email, PASSWORD, teamId);
  return { teamId, key, email };
}

async function call(key: string, method: string, path: string, body?: unknown) {
  const res = await fetch(`${V}/${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, json: await res.json() };
}

/** A connection from a new source to the receiver; returns the source's URL. */
async function connect(key: string, receiver: Receiver, tag: string): Promise<string> {
  const res = await call(key, "POST", "connections", {
    name: `conn-${tag}`,
    source: { name: `src-${tag}` },
    destination: { name: `dst-${tag}`, config: { url: `${receiver.url}/${tag}` } },
  });
  expect(res.status, JSON.stringify(res.json)).toBe(200);
  return res.json.source.url;
}

/** Waits until the team has `count` events in `status`. */
async function eventsWithStatus(teamId: string, status: string, count: number, timeoutMs = 30_000) {
  await expect
    .poll(async () => Number((await db().query("SELECT count(*) FROM events WHERE team_id = $1 AND status = $2", [teamId, status])).rows[0].count), {
      timeout: timeoutMs,
    })
    .toBe(count);
}

/** Screenshots of the page in light, dark and at a phone's width (docs/dashboard/{name}-*.png). */
async function shoot(page: Page, name: string) {
  await docsScreenshot(page, `docs/dashboard/${name}.png`, { fullPage: true });
  await setColorScheme(page, "dark");
  await expectAccessibleNow(page);
  await docsScreenshot(page, `docs/dashboard/${name}-dark.png`, { fullPage: true });
  await setColorScheme(page, "light");
  const size = page.viewportSize()!;
  await page.setViewportSize({ width: 390, height: 844 });
  await expectAccessibleNow(page);
  await docsScreenshot(page, `docs/dashboard/${name}-phone.png`, { fullPage: true });
  await page.setViewportSize(size);
}

async function signIn(page: Page, email: string, password = PASSWORD) {
  await page.goto("/dashboard/sign-in");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByTestId("sign-in-submit").click();
}

test.describe("sign-in", () => {
  test("an anonymous visitor is sent to sign-in; wrong credentials get one message; sign-in opens the Overview; sign-out ends the session", async ({
    page,
  }) => {
    const { email } = await setup("signin");
    for (const path of ["/dashboard", "/dashboard/events", "/dashboard/bulk"]) {
      await page.goto(path);
      await expect(page).toHaveURL(/\/dashboard\/sign-in$/);
    }
    const api = await page.request.get(`${V}/events`);
    expect(api.status()).toBe(401);
    await expectAccessibleNow(page);
    await docsScreenshot(page, "docs/dashboard/sign-in.png");

    await signIn(page, email, "wrong password!!");
    await expect(page.getByTestId("sign-in-error")).toHaveText("Wrong email or password.");
    await signIn(page, "nobody@example.test", "wrong password!!");
    await expect(page.getByTestId("sign-in-error")).toHaveText("Wrong email or password.");

    await signIn(page, email);
    await expect(page).toHaveURL(/\/dashboard$/);
    await expect(page.getByRole("heading", { name: "Overview" })).toBeVisible();
    await expect(page.getByTestId("signed-in-as")).toHaveText(email);
    await expect(page.getByTestId("chart-0").locator("svg").first()).toBeVisible({ timeout: 30_000 });
    await expect(page.getByTestId("open-issues")).toContainText("0");
    await expectAccessibleNow(page);
    await shoot(page, "overview");

    await page.getByTestId("sign-out").click();
    await expect(page).toHaveURL(/\/dashboard\/sign-in$/);
    await page.goto("/dashboard/events");
    await expect(page).toHaveURL(/\/dashboard\/sign-in$/);
  });
});

test.describe("signing secret", () => {
  test("Rotate secret on the Overview with a 1-hour overlap: the new secret is shown once, the old one signs x-gateway-signature-2 for an hour", async ({
    page,
  }) => {
    test.setTimeout(60_000);
    const { teamId, email } = await setup("rotate");
    const old = (await getSigningSecrets(teamId)).current;
    await signIn(page, email);
    const card = page.getByTestId("signing-secret-card");
    const dialog = page.getByRole("dialog", { name: "Rotate the signing secret?" });
    // Until the page has hydrated a choice may not reach its state: choose again until the dialog says 1 hour.
    await expect(async () => {
      await card.getByLabel("Old secret keeps signing for").selectOption({ label: "1 hour" });
      if (!(await dialog.isVisible())) await card.getByRole("button", { name: "Rotate secret" }).click({ timeout: 2_000 });
      await expect(dialog).toContainText("keeps signing x-gateway-signature-2 for 1 hour", { timeout: 2_000 });
    }).toPass({ timeout: 30_000 });
    const rotatedAt = Date.now();
    await expectAccessibleNow(page);
    await dialog.getByRole("button", { name: "Rotate secret" }).click();
    await expect(dialog).toBeHidden();
    const shown = (await card.getByTestId("new-signing-secret").textContent())!;
    const now = await getSigningSecrets(teamId);
    expect(shown).toBe(now.current);
    expect(now.previous).toBe(old);
    expect(Math.abs(now.previousExpiresAt!.getTime() - (rotatedAt + 3_600_000))).toBeLessThan(60_000);
    await expect(card.getByRole("button", { name: "Copy the new signing secret" })).toBeVisible();
  });
});

test.describe("one-time sign-in link", () => {
  test("the link's page names its account, sets a password and signs in; the link does not work twice", async ({ page }) => {
    const { teamId } = await createTeam("link");
    const email = `link-${Date.now()}@example.test`;
    const user = await createUser(email, null, teamId);
    const token = await createSignInToken(user.id);
    await page.goto(`/dashboard/sign-in/link?token=${token}`);
    await expect(page.getByRole("heading", { name: "Choose your password" })).toBeVisible();
    // Whom the link is for: the email and the team (reading them does not use the link).
    await expect(page.getByTestId("link-account")).toHaveText(/^For \S+ in the team link\b/);
    await expect(page.getByTestId("link-account")).toContainText(email);
    await page.reload();
    await expect(page.getByTestId("link-account")).toContainText(email);
    await expectAccessibleNow(page);
    await page.getByTestId("password").fill("my new long password");
    await page.getByTestId("confirm").fill("my new long password");
    // Keyboard only: Enter submits.
    await page.getByTestId("confirm").press("Enter");
    await expect(page).toHaveURL(/\/dashboard$/);
    await expect(page.getByTestId("signed-in-as")).toHaveText(email);
    await page.getByTestId("sign-out").click();
    await expect(page).toHaveURL(/\/dashboard\/sign-in$/);
    await page.goto(`/dashboard/sign-in/link?token=${token}`);
    await expect(page.getByTestId("link-account")).toContainText("already used or has expired");
    await page.getByTestId("password").fill("another long password");
    await page.getByTestId("confirm").fill("another long password");
    await page.getByTestId("sign-in-submit").click();
    await expect(page.getByTestId("sign-in-error")).toContainText("already used or has expired");
    await signIn(page, email, "my new long password");
    await expect(page).toHaveURL(/\/dashboard$/);
  });
});

test.describe("bulk operations", () => {
  test("after a receiver outage: Retry all failed events from the explorer, watch the progress bar complete, the receiver gets them", async ({ page }) => {
    test.setTimeout(90_000);
    const receiver = await startReceiver();
    try {
      const { teamId, key, email } = await setup("outage");
      receiver.respond({ status: 503, body: "down for maintenance" });
      const url = await connect(key, receiver, "outage");
      const N = 12;
      for (let i = 0; i < N; i++) await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ order: i }) });
      await eventsWithStatus(teamId, "FAILED", N);
      const before = receiver.received.length;
      receiver.respond({ status: 200, body: '{"received":true}' });

      await signIn(page, email);
      await expect(page).toHaveURL(/\/dashboard$/);
      await page.getByRole("link", { name: "Events", exact: true }).click();
      await expect(page.getByTestId("explorer-row")).toHaveCount(N);
      await page.getByTestId("filter-status").selectOption("FAILED");
      await expect(page).toHaveURL(/status=FAILED/);
      await expect(page.getByTestId("bulk-from-filter")).toHaveText(`Retry all ${N} matching`);
      await page.getByTestId("explorer-row").first().click();
      await expect(page.getByTestId("event-detail")).toContainText("FAILED");
      await expect(page.getByTestId("event-connection")).toHaveText("src-outage -> conn-outage");
      await expect(page.getByTestId("attempt-row")).toHaveCount(1);
      await page.getByTestId("attempt-row").first().click();
      await expect(page.getByTestId("attempt-body")).toHaveText("down for maintenance");
      await expect(page.getByTestId("event-body")).toContainText('"order"');
      await expectAccessibleNow(page);
      await shoot(page, "events");
      // The primary button's hover colour keeps its white text readable in dark (axe on the hovered state).
      await page.emulateMedia({ colorScheme: "dark" });
      await page.getByTestId("bulk-from-filter").hover();
      await expectAccessibleNow(page);
      await page.emulateMedia({ colorScheme: "light" });

      await page.getByTestId("bulk-from-filter").click();
      await expect(page).toHaveURL(/\/dashboard\/bulk\?.*family=events\.retry/);
      await expect(page.getByTestId("family-events.retry")).toBeChecked();
      await expect(page.getByTestId("filter-status")).toHaveValue("FAILED");
      await expect(page.getByTestId("plan-estimate")).toHaveAttribute("data-count", String(N));
      await page.getByTestId("bulk-start").click();
      await expect(page.getByTestId("bulk-confirmation")).toContainText(`Retry ${N} events?`);
      await expectAccessibleNow(page);
      await docsScreenshot(page, "docs/dashboard/bulk-confirm.png", { fullPage: true });
      await page.getByTestId("bulk-confirm").click();

      await expect(page.getByTestId("bulk-progress")).toBeVisible();
      await expect(page.getByTestId("bulk-state")).toHaveText("Completed", { timeout: 30_000 });
      await expect(page.getByRole("progressbar")).toHaveAttribute("aria-valuenow", "100");
      await expect(page.getByTestId("bulk-counts")).toContainText(`${N} of ${N} events handled`);
      await receiver.waitFor(before + N, 30_000);
      await eventsWithStatus(teamId, "SUCCESSFUL", N);
      await expect(page.getByTestId("bulk-history-row")).toHaveCount(1);
      // Nothing FAILED is left: the page says so instead of offering a run of 0.
      await expect(page.getByTestId("bulk-nothing")).toBeVisible();
      await expectAccessibleNow(page);
      await shoot(page, "bulk");
    } finally {
      await receiver.close();
    }
  });

  test("replay: requests that arrived before a connection existed go through it, from the requests explorer to delivery", async ({ page }) => {
    test.setTimeout(90_000);
    const receiver = await startReceiver();
    try {
      const { teamId, key, email } = await setup("replay");
      receiver.respond({ status: 200, body: "ok" });
      const url = await connect(key, receiver, "replay-old");
      const N = 6;
      for (let i = 0; i < N; i++) await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ invoice: i }) });
      await eventsWithStatus(teamId, "SUCCESSFUL", N);
      await receiver.waitFor(N, 15_000);
      const source = (await call(key, "GET", "sources?name=src-replay-old")).json.models[0];
      // A second source with a connection of its own must get nothing: the target is the chosen source's new connection.
      await connect(key, receiver, "replay-other");
      // The new connection on the same source, made after every request arrived.
      const created = await call(key, "POST", "connections", {
        name: "backfill",
        source_id: source.id,
        destination: { name: "dst-backfill", config: { url: `${receiver.url}/backfill` } },
      });
      expect(created.status, JSON.stringify(created.json)).toBe(200);
      const backfill = created.json;
      // 260 more sources whose names sort first (written straight to the database: the API's rate limit): the
      // pickers and names read every page of the list, not the first 250.
      const extra = Array.from({ length: 260 }, (_, i) => `aa-extra-${String(i).padStart(3, "0")}`);
      await db().query("INSERT INTO sources (id, team_id, name, updated_at) SELECT 'src_' || md5($1 || n), $1, n, now() FROM unnest($2::text[]) AS n", [
        teamId,
        extra,
      ]);

      await signIn(page, email);
      await expect(page).toHaveURL(/\/dashboard$/);
      await page.getByRole("link", { name: "Requests", exact: true }).click();
      await expect(page.getByTestId("explorer-row")).toHaveCount(N);
      // Names instead of bare ids.
      await expect(page.getByTestId("explorer-row").first()).toContainText("src-replay-old");
      await page.getByTestId("filter-source_id").selectOption(source.id);
      await expect(page.getByTestId("bulk-from-filter")).toHaveText(`Retry all ${N} matching`);
      await page.getByTestId("bulk-from-filter").click();
      await expect(page.getByTestId("family-requests.retry")).toBeChecked();
      await page.getByTestId("family-requests.replay").click();
      await expect(page.getByTestId("family-requests.replay")).toBeChecked();
      await expect(page.getByTestId("filter-source_id")).toHaveValue(source.id);
      await expect(page.getByTestId("plan-estimate")).toHaveAttribute("data-count", String(N));
      // No target yet: the start button waits for one.
      await expect(page.getByTestId("target-needed")).toBeVisible();
      await expect(page.getByTestId("bulk-start")).toBeDisabled();
      await page.getByTestId("target-source").selectOption(source.id);
      // The choice lives in the page address (router.replace), so the box turns checked a moment after the click.
      await page.getByTestId(`target-connection-${backfill.id}`).click();
      await expect(page.getByTestId(`target-connection-${backfill.id}`)).toBeChecked();
      await expect(page).toHaveURL(new RegExp(`target_webhooks=${backfill.id}`));
      await expectAccessibleNow(page);
      await page.getByTestId("bulk-start").click();
      await expect(page.getByTestId("bulk-confirmation")).toContainText(`Replay ${N} requests?`);
      await expect(page.getByTestId("bulk-confirm-target")).toContainText("1 chosen connection");
      await page.getByTestId("bulk-confirm").click();
      await expect(page.getByTestId("bulk-state")).toHaveText("Completed", { timeout: 30_000 });
      await expect(page.getByTestId("bulk-counts")).toContainText(`${N} of ${N} requests handled`);
      const all = await receiver.waitFor(2 * N, 30_000);
      await page.waitForTimeout(1_000);
      // Exactly N more deliveries, all to the new connection's destination, with the original bodies.
      expect(receiver.received.length).toBe(2 * N);
      const replayed = all.slice(N);
      expect(replayed.map((r) => r.url)).toEqual(Array(N).fill("/backfill"));
      expect(replayed.map((r) => JSON.parse(r.body.toString()).invoice).sort()).toEqual([...Array(N).keys()]);
      await expect(page.getByTestId("bulk-history-row")).toHaveCount(1);
      // The past operation's filter names the source and the connection instead of their ids.
      await expect(page.getByTestId("bulk-history-row").first()).toContainText(
        "source_id = src-replay-old · target source_id src-replay-old, webhook_ids src-replay-old -> backfill",
      );
      await expectAccessibleNow(page);
      await shoot(page, "bulk-replay");

      // From the operation to the events it created.
      const opId = new URL(page.url()).searchParams.get("op")!;
      await page.getByTestId("bulk-events-link").click();
      await expect(page).toHaveURL(new RegExp(`/dashboard/events\\?bulk_retry_id=${opId}`));
      await expect(page.getByTestId("filter-bulk_retry_id")).toHaveValue(opId);
      await expect(page.getByTestId("explorer-row")).toHaveCount(N);
      for (const row of await page.getByTestId("explorer-row").all()) await expect(row).toContainText("src-replay-old -> backfill");
      await expect(page.getByTestId("explorer-row").getByText("SUCCESSFUL")).toHaveCount(N);
    } finally {
      await receiver.close();
    }
  });

  test("cancel: a running operation stops before its next batch and shows Cancelled", async ({ page }) => {
    test.setTimeout(120_000);
    const receiver = await startReceiver();
    // Holds a row lock on one event of the second batch, so the operation is certainly running when Cancel is pressed.
    const holder = await db().connect();
    try {
      const { teamId, key, email } = await setup("cancel");
      receiver.respond({ status: 500 });
      const url = await connect(key, receiver, "cancel");
      const N = 300;
      for (let i = 0; i < N; i += 20)
        await Promise.all(
          Array.from({ length: 20 }, (_, j) =>
            fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ n: i + j }) }),
          ),
        );
      await eventsWithStatus(teamId, "FAILED", N, 60_000);
      receiver.respond({ status: 200 });
      await holder.query("BEGIN");
      await holder.query("SELECT id FROM events WHERE team_id = $1 ORDER BY id OFFSET 150 LIMIT 1 FOR UPDATE", [teamId]);

      await signIn(page, email);
      await expect(page).toHaveURL(/\/dashboard$/);
      await page.goto("/dashboard/bulk?family=events.retry&status=FAILED");
      await expect(page.getByTestId("plan-estimate")).toHaveAttribute("data-count", String(N));
      await page.getByTestId("bulk-start").click();
      await page.getByTestId("bulk-confirm").click();
      await expect(page.getByTestId("bulk-state")).toHaveText("In progress");
      await page.getByTestId("bulk-cancel").click();
      await expect(page.getByTestId("bulk-cancel")).toHaveText("Cancelling…");
      // The button says so at once; the lock is let go only once the cancel has reached the database (it
      // waits there behind the held batch): on a slow machine the cancel arrived after the held batch and
      // the next one had run.
      await expect
        .poll(
          async () =>
            (
              await db().query<{ n: number }>(
                // The cancel's UPDATE of bulk_operations (written by Prisma: quoted names) waiting behind the held row.
                "SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%UPDATE %bulk_operations%SET %cancelled_at%'",
              )
            ).rows[0].n,
          { timeout: 30_000 },
        )
        .toBeGreaterThan(0);
      await holder.query("COMMIT");
      await expect(page.getByTestId("bulk-state")).toHaveText("Cancelled");
      const opId = new URL(page.url()).searchParams.get("op")!;
      const op = (await call(key, "GET", `bulk/events/retry/${opId}`)).json;
      expect(op.cancelled_at).not.toBeNull();
      expect(op.completed_at).toBeNull();
      expect(op.in_progress).toBe(false);
      expect([100, 200]).toContain(op.completed_count);
      await page.waitForTimeout(1_500);
      expect((await call(key, "GET", `bulk/events/retry/${opId}`)).json.processed_batch).toBe(op.processed_batch);
      await expect(page.getByTestId("bulk-history-row").first()).toContainText("Cancelled");
      await docsScreenshot(page, "docs/dashboard/bulk-cancelled.png", { fullPage: true });

      // A page of 100 rows: from the click on Events to the rows on screen (API call and render).
      const started = Date.now();
      await page.getByRole("link", { name: "Events", exact: true }).click();
      await expect(page.getByTestId("explorer-row")).toHaveCount(100);
      const elapsed = Date.now() - started;
      console.log(`events explorer: 100 rows on screen ${elapsed} ms after the click`);
      expect(elapsed).toBeLessThan(1_500);
      // Keyset paging: Older shows the next 100, Newer comes back.
      const firstOf = () => page.getByTestId("explorer-row").first().getAttribute("data-id");
      const page1 = await firstOf();
      await page.getByTestId("older").click();
      await expect.poll(firstOf).not.toBe(page1);
      await expect(page.getByTestId("explorer-row")).toHaveCount(100);
      await page.getByRole("button", { name: "Newer" }).click();
      await expect.poll(firstOf).toBe(page1);
    } finally {
      await holder.query("ROLLBACK").catch(() => {});
      holder.release();
      await receiver.close();
    }
  });
});
