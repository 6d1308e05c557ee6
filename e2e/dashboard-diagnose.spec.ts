/**
 * Browser tests of the dashboard's diagnosis loop (docs/dashboard.md "Ignored events and transformation runs",
 * "Issues", "Bulk operations"), against the test server, its worker, real PostgreSQL and real receivers:
 * - a failing transformation: the request links to its ignored event, which shows the error and the console;
 *   the transformation issue shows them too and links to its runs in the runs explorer;
 * - an issue's failed events retried from the issue page resolve the issue; the nav counts open issues;
 * - a retry whose deliveries fail again says so (not a green "Completed"); a search value that cannot be
 *   searched says why next to its field; a refused filter offers Clear filters, not Try again.
 * axe in light and dark; a phone-width check; screenshots (light, dark, 390 px) into docs/dashboard/ with `npm run screenshots`.
 */
import type { Page } from "@playwright/test";
import { closePool } from "@/lib/db/pool";
import { closeDb, expect, test } from "./support/browser";
import { expectAccessible } from "./support/accessibility";
import { fitsPhone, signedIn } from "./support/dashboard-pages";
import { api, type TestTeam } from "./support/gateway";
import { type Receiver, startReceiver } from "./support/receiver";

const V = "/2025-07-01";
// Each test waits on the worker (fan-out, deliveries, issue detection) on a busy machine.
test.describe.configure({ timeout: 180_000 });
/** The first look at a page that loads its data in the browser, ms. */
const LOAD = { timeout: 30_000 };
let receiver: Receiver;
/** Paths the receiver answers 500 on. */
const failing = new Set<string>();

test.beforeAll(async () => {
  receiver = await startReceiver();
  receiver.respond((req) => ({ status: [...failing].some((p) => req.url.startsWith(p)) ? 500 : 200, body: "x" }));
});
test.afterAll(async () => {
  await receiver?.close();
  await closeDb();
  await closePool();
});

/** A connection named `name` to the receiver at `/<name>`, with `rules`; returns its id and source URL. */
async function connection(team: TestTeam, name: string, rules: unknown[] = []) {
  const res = await api(team, "POST", `${V}/connections`, {
    name,
    source: { name: `${name}-in` },
    destination: { name: `${name}-out`, config: { url: `${receiver.url}/${name}` } },
    rules,
  });
  expect(res.status, JSON.stringify(res.json)).toBe(200);
  return { id: res.json.id as string, url: res.json.source.url as string };
}

/** POSTs a JSON body to a source URL; returns the request id. */
async function send(url: string, body: unknown): Promise<string> {
  const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  expect(res.status).toBe(200);
  return ((await res.json()) as { request_id: string }).request_id;
}

/** Polls the API path until `pick` returns something. */
async function until<T>(team: TestTeam, path: string, pick: (json: any) => T | undefined | null | false): Promise<T> {
  let found: T | undefined | null | false;
  await expect.poll(async () => (found = pick((await api(team, "GET", `${V}/${path}`)).json)), { timeout: 40_000 }).toBeTruthy();
  return found as T;
}

/** Reloads `page` until `testId` shows `text` (issue detection runs in the worker, every few seconds). */
async function reloadUntil(page: Page, testId: string, text: string) {
  await expect
    .poll(
      async () => {
        await page.reload();
        return (
          (await page
            .getByTestId(testId)
            .textContent({ timeout: 10_000 })
            .catch(() => "")) ?? ""
        );
      },
      { timeout: 40_000, intervals: [2_000] },
    )
    .toContain(text);
}

test("a failing transformation: request → ignored event → error and console; the issue shows them and links to its runs", async ({ page }) => {
  const team = await signedIn(page);
  expect((await api(team, "POST", `${V}/issue-triggers`, { type: "transformation", configs: { log_level: "error", transformations: "*" } })).status).toBe(200);
  const code = 'addHandler("transform", (request) => { console.log("order seen", request.body.order); throw new Error("no order id"); })';
  const shop = await connection(team, "shop", [{ type: "transform", transformation: { name: `orders-${Date.now()}`, code } }]);
  const requestId = await send(shop.url, { order: 41 });
  const ignored = await until(team, `ignored-events?request_id=${requestId}`, (j) => j.models[0] as { meta: { transformation_id: string } } | undefined);
  // What the page must show, as the API has it (a busy machine may time the run out before its console line).
  const runs = (await api(team, "GET", `${V}/transformations/${ignored.meta.transformation_id}/executions`)).json.models as {
    logs: { type: string; message: string }[];
  }[];
  expect(runs).toHaveLength(1);
  const error = runs[0].logs.at(-1)!;
  expect(error.type).toBe("error");
  // The console shows every line but the error, which has its own place.
  const consoleLines = runs[0].logs.filter((l) => !(l.type === "error" && l.message === error.message)).map((l) => l.message);

  await page.goto(`/dashboard/requests?id=${requestId}`);
  await page.getByTestId("request-ignored-link").click(LOAD);
  await expect(page).toHaveURL(/\/dashboard\/ignored-events\?id=ign_/);
  await expect(page.getByTestId("ignored-why")).toContainText("transformation failed");
  await expect(page.getByTestId("run-error")).toContainText(error.message, LOAD);
  for (const line of consoleLines.length ? consoleLines : ["Nothing was logged."]) await expect(page.getByTestId("run-logs")).toContainText(line);
  await expectAccessible(page);
  await fitsPhone(page, "ignored-events");
  // The keyboard: Escape (in the panel) closes it, j selects the row again.
  await page.locator("#side-panel-title").focus();
  await page.keyboard.press("Escape");
  await expect(page).not.toHaveURL(/id=ign_/);
  await page.keyboard.press("j");
  await expect(page).toHaveURL(/id=ign_/);

  const issue = await until(team, "issues?type=transformation", (j) => j.models[0] as { id: string } | undefined);
  await page.goto(`/dashboard/issues/${issue.id}`);
  await expect(page.getByTestId("run-error")).toContainText(error.message, LOAD);
  for (const line of consoleLines.length ? consoleLines : ["Nothing was logged."]) await expect(page.getByTestId("run-logs")).toContainText(line);
  await expect(page.getByText("No events", { exact: true })).toHaveCount(0);
  await expectAccessible(page);
  await fitsPhone(page, "issue-transformation");

  await page.getByTestId("issue-runs-link").click();
  await expect(page).toHaveURL(new RegExp(`/dashboard/executions\\?.*issue_id=${issue.id}`));
  await expect(page.getByTestId("explorer-row")).toHaveCount(1, LOAD);
  await page.getByTestId("explorer-row").first().focus();
  await page.keyboard.press("Enter");
  await expect(page.getByTestId("record-detail").getByTestId("run-error")).toContainText(error.message, LOAD);
  await expect(page.getByTestId("record-detail")).toContainText('"order": 41');
  await expectAccessible(page);
  await fitsPhone(page, "transformation-runs");
});

test("an issue's failed events retried from the issue page: the retry reports its deliveries and the issue resolves", async ({ page }) => {
  const team = await signedIn(page);
  failing.add("/billing");
  const billing = await connection(team, "billing");
  expect((await api(team, "POST", `${V}/issue-triggers`, { type: "delivery", configs: { strategy: "first_attempt", connections: [billing.id] } })).status).toBe(
    200,
  );
  for (const n of [1, 2]) await send(billing.url, { invoice: n });
  const issue = await until(team, "issues?type=delivery", (j) => j.models[0] as { id: string } | undefined);
  await until(team, `events?issue_id=${issue.id}&status=FAILED`, (j) => j.count === 2);

  await page.goto("/dashboard");
  await expect(page.getByTestId("nav-open-issues").first()).toContainText("1", LOAD);
  await page.getByTestId("open-issues").click();
  await expect(page).toHaveURL(/\/dashboard\/issues$/);

  await page.goto(`/dashboard/issues/${issue.id}`);
  await expect(page.getByTestId("issue-retry")).toBeVisible(LOAD);
  await expect(page.getByTestId("issue-retry-hint")).toContainText("2 failed events");
  await expectAccessible(page);
  await fitsPhone(page, "issue-delivery");
  failing.delete("/billing");
  await page.getByTestId("issue-retry").click();
  await expect(page).toHaveURL(/\/dashboard\/bulk\?.*issue_id=iss_/);
  await expect(page.getByTestId("filter-issue_id")).toHaveValue(issue.id, LOAD);
  await expect(page.getByTestId("plan-estimate")).toHaveAttribute("data-count", "2", LOAD);
  await page.getByTestId("bulk-start").click();
  await page.getByTestId("bulk-confirm").click();
  await expect(page.getByTestId("bulk-state")).toHaveText("Completed", { timeout: 30_000 });
  await expect(page.getByTestId("bulk-outcome")).toHaveAttribute("data-delivered", "2", LOAD);
  await expect(page.getByTestId("bulk-issue")).toContainText(issue.id);
  await expectAccessible(page);

  await page.goto(`/dashboard/issues/${issue.id}`);
  await reloadUntil(page, "issue-status", "RESOLVED");
  await expect(page.getByTestId("issue-retry")).toHaveCount(0);
});

test("errors: a retry that fails again says so; search values say what is wrong next to the field; a refused filter is not tried again", async ({ page }) => {
  const team = await signedIn(page);
  failing.add("/ledger");
  const ledger = await connection(team, "ledger");
  for (const n of [1, 2, 3]) await send(ledger.url, { entry: n });
  await until(team, "events?status=FAILED", (j) => j.count === 3);

  await page.goto("/dashboard/bulk?family=events.retry&status=FAILED");
  await expect(page.getByTestId("plan-estimate")).toHaveAttribute("data-count", "3", LOAD);
  await page.getByTestId("bulk-start").click();
  await page.getByTestId("bulk-confirm").click();
  await expect(page.getByTestId("bulk-state")).toHaveText("Completed, 3 failed again", { timeout: 30_000 });
  await expect(page.getByTestId("bulk-outcome")).toHaveAttribute("data-failed", "3", LOAD);
  await expect(page.getByTestId("bulk-outcome")).toContainText("0 delivered");
  await expectAccessible(page);
  await fitsPhone(page, "bulk-failed-again");

  await page.goto("/dashboard/events");
  await expect(page.getByTestId("explorer-row")).toHaveCount(3, LOAD);
  await page.getByText("More search fields").click();
  const status = page.getByTestId("search-response_status");
  await status.fill("abc");
  await status.press("Enter");
  await expect(page.getByText("Enter an HTTP status code of three digits, like 500.", { exact: true })).toBeVisible();
  await expect(status).toHaveAttribute("aria-invalid", "true");
  expect(page.url()).not.toContain("response_status");
  await status.fill("500");
  await status.press("Enter");
  await expect(page).toHaveURL(/response_status=500/);
  await expect(status).not.toHaveAttribute("aria-invalid", "true");
  const body = page.getByTestId("search-body");
  await body.fill("{type: order}");
  await body.press("Enter");
  await expect(body).toHaveAttribute("aria-invalid", "true");
  await expect(page.getByText(/^This is not JSON/)).toBeVisible();
  await expectAccessible(page);
  await fitsPhone(page, "search-field-error");

  // A filter the API refuses, from a link: why, once, and Clear filters instead of Try again.
  await page.goto(`/dashboard/events?headers=${encodeURIComponent('{"$bogus":1}')}`);
  await expect(page.getByTestId("filter-refused")).toBeVisible(LOAD);
  await expect(page.getByTestId("search-headers")).toHaveAttribute("aria-invalid", "true");
  await expect(page.getByRole("button", { name: "Try again" })).toHaveCount(0);
  await page.getByTestId("filter-refused").getByRole("button", { name: "Clear filters" }).click();
  await expect(page.getByTestId("explorer-row")).toHaveCount(3, LOAD);
});
