/**
 * Browser tests of the dashboard's explorers (docs/dashboard.md "Requests, events, attempts"), in Debian's
 * Chromium against the test server and real PostgreSQL: the detail opens beside the list (in the viewport
 * at desktop width, a full-screen sheet at a phone's), the URL holds the selection, the filters and the
 * search and restores them on reload, j/k and the arrow keys move the selection, the search finds a request
 * by its body, details show method + path + query and link request → events → attempts → destination, and
 * the keyboard reaches the first row in four key presses. axe in light and dark with the panel open;
 * screenshots into docs/dashboard/explorer-*.png (`npm run screenshots`).
 */
import type { Page } from "@playwright/test";
import { createApiKey } from "@/lib/teams/api-keys";
import { createTeam } from "@/lib/teams/bootstrap";
import { createUser } from "@/lib/dashboard/users";
import { closePool } from "@/lib/db/pool";
import { BASE_URL, closeDb, db, expect, test } from "./support/browser";
import { expectAccessibleNow, setColorScheme } from "./support/accessibility";
import { type Receiver, startReceiver } from "./support/receiver";
import { docsScreenshot } from "./support/docs-screenshots";

const V = `${BASE_URL}/api/2025-07-01`;
const PASSWORD = "correct horse battery";
const N = 8;

let receiver: Receiver;
let email = "";
let teamId = "";

test.beforeAll(async () => {
  receiver = await startReceiver();
  ({ teamId } = await createTeam("explorers"));
  const { key } = await createApiKey(teamId, "test");
  email = `explorers-${Date.now()}@example.test`;
  await createUser(email, PASSWORD, teamId);
  const res = await fetch(`${V}/connections`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ name: "orders", source: { name: "shop" }, destination: { name: "warehouse", config: { url: `${receiver.url}/in` } } }),
  });
  expect(res.status).toBe(200);
  const url = (await res.json()).source.url as string;
  // Request i: POST /orders/i?shop=si, topic header, a body with its own word (the search finds request 5 by "needle-5").
  for (let i = 0; i < N; i++) {
    const sent = await fetch(`${url}/orders/${i}?shop=s${i}`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-topic": i % 2 ? "order.paid" : "order.created" },
      body: JSON.stringify({ order: i, note: `needle-${i}` }),
    });
    expect(sent.status).toBe(200);
  }
  await expect
    .poll(async () => Number((await db().query("SELECT count(*) FROM events WHERE team_id = $1 AND status = 'SUCCESSFUL'", [teamId])).rows[0].count), {
      timeout: 30_000,
    })
    .toBe(N);
});

test.afterAll(async () => {
  await receiver?.close();
  await closeDb();
  await closePool();
});

async function signIn(page: Page) {
  await page.goto("/dashboard/sign-in");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByTestId("sign-in-submit").click();
  // A sign-in hashes the password with scrypt (128 MiB, docs/dashboard.md): seconds when the machine is busy.
  await expect(page).toHaveURL(/\/dashboard$/, { timeout: 20_000 });
}

/** axe in light and dark, and screenshots docs/dashboard/{name}.png and {name}-dark.png. */
async function checkAndShoot(page: Page, name: string) {
  for (const scheme of ["light", "dark"] as const) {
    await setColorScheme(page, scheme);
    await expectAccessibleNow(page);
    await docsScreenshot(page, `docs/dashboard/${name}${scheme === "dark" ? "-dark" : ""}.png`);
  }
  await setColorScheme(page, "light");
}

const rows = (page: Page) => page.getByTestId("explorer-row");
const selectedId = (page: Page) => page.locator('[data-testid="explorer-row"][aria-selected="true"]').getAttribute("data-id");

test("the detail opens beside the list at desktop width and as a full-screen sheet on a phone; axe clean in light and dark", async ({ page }) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  await signIn(page);
  await page.goto("/dashboard/events");
  await expect(rows(page)).toHaveCount(N);
  const last = rows(page).last();
  const id = await last.getAttribute("data-id");
  await last.click();
  const panel = page.getByTestId("side-panel");
  await expect(panel).toBeInViewport({ ratio: 0.9 });
  await expect(panel).toContainText(id!);
  await expect(page).toHaveURL(new RegExp(`[?&]id=${id}`));
  // Beside the list: the panel's left edge is right of the table's.
  const [list, side] = [await page.getByTestId("list-column").boundingBox(), await panel.boundingBox()];
  expect(side!.x).toBeGreaterThan(list!.x + list!.width - 1);
  // Focus moved into the panel.
  await expect(page.locator("#side-panel-title")).toBeFocused();
  await expect(page.getByTestId("event-detail")).toContainText("SUCCESSFUL");
  await checkAndShoot(page, "explorer-events");

  // Escape closes it and gives focus back to the row.
  await page.keyboard.press("Escape");
  await expect(panel).toHaveCount(0);
  await expect(page).not.toHaveURL(/[?&]id=/);
  await expect(last).toBeFocused();

  // A phone: the detail is a sheet over the whole screen.
  await page.setViewportSize({ width: 390, height: 844 });
  await rows(page)
    .nth(N - 2)
    .click();
  await expect(panel).toBeInViewport({ ratio: 0.9 });
  const box = await panel.boundingBox();
  expect(box).toMatchObject({ x: 0, y: 0, width: 390, height: 844 });
  await checkAndShoot(page, "explorer-events-phone");
  await page.getByTestId("side-panel-close").click();
  await expect(panel).toHaveCount(0);
});

/** The headers shown over the list, and the left edge of each, with the left edges of the first row's cells. */
async function columnsOf(page: Page) {
  const table = page.getByTestId("explorer-table");
  const headers = table.getByRole("columnheader");
  const shown: string[] = [];
  const headerX: number[] = [];
  for (const h of await headers.all()) {
    if (!(await h.isVisible())) continue;
    shown.push((await h.textContent())!.trim());
    headerX.push(Math.round((await h.boundingBox())!.x));
  }
  const cellX: number[] = [];
  for (const c of await rows(page).first().getByRole("cell").all()) if (await c.isVisible()) cellX.push(Math.round((await c.boundingBox())!.x));
  return { shown, headerX, cellX };
}

test("the list's columns follow its own width: all of them full width, fewer beside the open panel and on a phone, cells under their headers", async ({
  page,
}) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  await signIn(page);
  await page.goto("/dashboard/events");
  await expect(rows(page)).toHaveCount(N);
  const wide = await columnsOf(page);
  expect(wide.shown).toEqual(["Status", "Request", "Topic", "Response", "Connection", "Age"]);
  expect(wide.cellX).toEqual(wide.headerX);
  // Every row is laid out on its own over the same columns: a long value in one row does not move another's.
  const firstX = await rows(page).first().getByRole("cell").nth(4).boundingBox();
  const lastX = await rows(page).last().getByRole("cell").nth(4).boundingBox();
  expect(Math.round(lastX!.x)).toBe(Math.round(firstX!.x));

  // Beside the open panel the list is narrower than 64rem: the connection column goes, the topic stays.
  await rows(page).first().click();
  await expect(page.getByTestId("side-panel")).toBeVisible();
  const beside = await columnsOf(page);
  expect(beside.shown).toEqual(["Status", "Request", "Topic", "Response", "Age"]);
  expect(beside.cellX).toEqual(beside.headerX);
  await page.keyboard.press("Escape");

  // A phone: status, request, response and age, and the list does not scroll sideways.
  await page.setViewportSize({ width: 390, height: 844 });
  await expect(page.getByTestId("side-panel")).toHaveCount(0);
  const phone = await columnsOf(page);
  expect(phone.shown).toEqual(["Status", "Request", "Response", "Age"]);
  expect(phone.cellX).toEqual(phone.headerX);
  const scroll = await page.getByTestId("explorer-table").evaluate((t) => ({ scroll: t.parentElement!.scrollWidth, client: t.parentElement!.clientWidth }));
  expect(scroll.scroll).toBeLessThanOrEqual(scroll.client);
});

test("the URL holds the selection, the filters and the search, and a reload restores them", async ({ page }) => {
  await signIn(page);
  await page.goto("/dashboard/events");
  await expect(rows(page)).toHaveCount(N);
  await page.getByTestId("filter-status").selectOption("SUCCESSFUL");
  await expect(page).toHaveURL(/status=SUCCESSFUL/);
  await page.getByText("More search fields").click();
  await page.getByTestId("search-path").fill("/orders/3");
  await page.getByTestId("search-path").press("Enter");
  await expect(page).toHaveURL(/path=%2Forders%2F3/);
  await expect(rows(page)).toHaveCount(1);
  const id = await rows(page).first().getAttribute("data-id");
  await rows(page).first().click();
  await expect(page).toHaveURL(new RegExp(`id=${id}`));

  await page.reload();
  await expect(page.getByTestId("filter-status")).toHaveValue("SUCCESSFUL");
  await expect(page.getByTestId("search-path")).toHaveValue("/orders/3");
  await expect(rows(page)).toHaveCount(1);
  await expect(page.getByTestId("side-panel")).toContainText(id!);
  await expect(page.getByTestId("request-line")).toHaveText("POST /orders/3?shop=s3");
  await expect(rows(page).first()).toHaveAttribute("aria-selected", "true");
});

test("j / k and the arrow keys move the selection; the keyboard reaches the first row in four presses", async ({ page }) => {
  await signIn(page);
  await page.goto("/dashboard/requests");
  await expect(rows(page)).toHaveCount(N);
  const ids = await rows(page).evaluateAll((els) => els.map((e) => e.getAttribute("data-id")));
  // Skip to content, then Skip to results: focus on the first row.
  await page.keyboard.press("Tab");
  await page.keyboard.press("Enter");
  await page.keyboard.press("Tab");
  await expect(page.getByTestId("skip-to-results")).toBeFocused();
  await page.keyboard.press("Enter");
  await expect(rows(page).first()).toBeFocused();

  /** Presses `key`, then waits until row `i` is the selected one, in the list and in the URL. */
  const press = async (key: string, i: number) => {
    await page.keyboard.press(key);
    await expect.poll(() => selectedId(page)).toBe(ids[i]);
    await expect(page).toHaveURL(new RegExp(`id=${ids[i]}`));
  };
  await press("j", 0);
  await press("j", 1);
  await press("ArrowDown", 2);
  await expect(rows(page).nth(2)).toBeFocused();
  await press("k", 1);
  await press("ArrowUp", 0);
  await expect(page.getByTestId("side-panel")).toContainText(ids[0]!);
  // Enter opens the focused row's detail with focus in it.
  await page.keyboard.press("ArrowDown");
  await page.keyboard.press("Enter");
  await expect(page.locator("#side-panel-title")).toBeFocused();
  await expect(page.getByTestId("side-panel")).toContainText(ids[1]!);
});

test("the search finds a request by its body; its detail shows method, path and query and links to its event, attempts and destination", async ({ page }) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  await signIn(page);
  await page.goto("/dashboard/requests");
  await expect(rows(page)).toHaveCount(N);
  await expect(rows(page).first()).toContainText("POST");
  await expect(rows(page).first()).toContainText("/orders/");
  await page.getByTestId("search-search_term").fill("needle-5");
  await expect(page).toHaveURL(/search_term=needle-5/);
  await expect(rows(page)).toHaveCount(1);
  await expect(rows(page).first()).toContainText("/orders/5");
  await expect(rows(page).first()).toContainText("order.paid");
  await rows(page).first().click();
  await expect(page.getByTestId("request-line")).toHaveText("POST /orders/5?shop=s5");
  await expect(page.getByTestId("record-body")).toContainText("needle-5");
  await expect(page.getByTestId("side-panel")).not.toContainText("team_id");
  // Times in the viewer's zone, zone shown.
  await expect(page.getByTestId("side-panel").locator("time").first()).toHaveText(/(GMT|UTC)/);
  await expectAccessibleNow(page);
  await docsScreenshot(page, "docs/dashboard/explorer-requests.png");
  await page.emulateMedia({ colorScheme: "dark" });
  await expectAccessibleNow(page);
  await page.emulateMedia({ colorScheme: "light" });

  // request → event
  const eventLink = page.getByTestId("request-event-link");
  await expect(eventLink).toHaveCount(1);
  const eventId = (await eventLink.textContent())!;
  await eventLink.click();
  await expect(page).toHaveURL(new RegExp(`/dashboard/events\\?id=${eventId}`));
  await expect(page.getByTestId("event-detail")).toBeVisible();
  await expect(page.getByTestId("request-line")).toHaveText("POST /orders/5?shop=s5");
  await expect(page.getByTestId("event-request-link")).toHaveAttribute("href", /\/dashboard\/requests\?id=req_/);
  // event → attempt
  await page.getByTestId("attempt-row").first().click();
  await page.getByTestId("side-panel").getByRole("link", { name: /^atm_/ }).click();
  await expect(page).toHaveURL(/\/dashboard\/attempts\?id=atm_/);
  await expect(page.getByTestId("attempt-line")).toContainText(`POST ${receiver.url}/in/orders/5?shop=s5`);
  await expect(page.getByTestId("side-panel")).toContainText(/\d+ ms/);
  await expect(page.getByTestId("attempt-event-link")).toHaveText(eventId);
  await expectAccessibleNow(page);
  await docsScreenshot(page, "docs/dashboard/explorer-attempts.png");
  // attempt → destination (its attempts)
  await page.getByTestId("side-panel").getByRole("link", { name: "warehouse" }).click();
  await expect(page).toHaveURL(/\/dashboard\/attempts\?destination_id=des_/);
  await expect(rows(page)).toHaveCount(N);
});

test("the pointer on an explorer's link asks for its rows; the click shows them without asking again", async ({ page }) => {
  await signIn(page);
  await page.goto("/dashboard/connections");
  await page.getByRole("heading", { name: "Connections" }).waitFor();
  const lists: number[] = [];
  page.on("request", (r) => {
    const u = new URL(r.url());
    if (u.pathname.endsWith("/api/2025-07-01/events") && u.searchParams.get("include") === "data") lists.push(Date.now());
  });
  const link = page.getByRole("link", { name: "Events", exact: true });
  const asked = page.waitForRequest((r) => new URL(r.url()).pathname.endsWith("/api/2025-07-01/events"));
  await link.hover();
  expect(new URL((await asked).url()).searchParams.get("limit")).toBe("100");
  expect(lists).toHaveLength(1);
  await link.click();
  await expect(rows(page)).toHaveCount(N);
  await expect(page).toHaveURL(/\/dashboard\/events$/);
  // The prefetched page is fresh (2 s): the mount asks for nothing more; a later call is the live refresh (every 3 s).
  expect(lists.slice(1).filter((t) => t - lists[0] < 2_000)).toEqual([]);
});

test("rows on screen when the page opens are not marked new; a row that arrives live is, alone", async ({ page }) => {
  // A team of its own: the other tests count this file's team's rows.
  const team = await createTeam("explorers-live");
  const { key } = await createApiKey(team.teamId, "test");
  const liveEmail = `explorers-live-${Date.now()}@example.test`;
  await createUser(liveEmail, PASSWORD, team.teamId);
  const res = await fetch(`${V}/connections`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ name: "live", source: { name: "live" }, destination: { name: "live", config: { url: `${receiver.url}/live` } } }),
  });
  expect(res.status).toBe(200);
  const url = (await res.json()).source.url as string;
  const send = (path: string) => fetch(`${url}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
  for (const path of ["/orders/a", "/orders/b"]) expect((await send(path)).status).toBe(200);
  await page.goto("/dashboard/sign-in");
  await page.getByLabel("Email").fill(liveEmail);
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByTestId("sign-in-submit").click();
  await expect(page).toHaveURL(/\/dashboard$/, { timeout: 20_000 });
  await page.goto("/dashboard/events");
  await expect(rows(page)).toHaveCount(2, { timeout: 20_000 });
  await expect(page.locator(".hy-row-new")).toHaveCount(0);
  expect((await send("/orders/live")).status).toBe(200);
  // The first page looks for new rows every 3 s.
  await expect(rows(page)).toHaveCount(3, { timeout: 20_000 });
  await expect(page.locator(".hy-row-new")).toHaveCount(1);
  await expect(page.locator(".hy-row-new")).toContainText("/orders/live");
});
