/**
 * One look across console, dashboard and portal (docs/dashboard.md "One kit", "Charts", "First run",
 * "Settings"), in a real browser against the real server and PostgreSQL:
 * - charts: the portal's y-axis reads the data's maximum (800) in full, counts are bars side by side (the
 *   failed bar is as tall as its own count, not the total), the bucket size and the time zone are named under
 *   the axis and in the tooltip; the dashboard draws counts as bars and levels as lines;
 * - first run: the console home links to the dashboard, an Overview without connections offers the first
 *   connection, Settings holds the team's keys, users and CLI key, and the one-time link page names its account;
 * - the kit: copy works on a plain-http origin without `navigator.clipboard` and says when it failed; a
 *   styled dialog asks before a revoke, never `window.confirm`; one time format with the zone on hover;
 *   statuses in sentence case.
 * Every page passes axe in light and dark, fits a phone, and is screenshotted into docs/dashboard/ (`npm run screenshots`).
 */
import { randomBytes } from "node:crypto";
import type { Page } from "@playwright/test";
import { getPool } from "@/lib/db/pool";
import { createOutboundKey } from "@/lib/outbound/auth";
import { teamOfCliKey } from "@/lib/teams/cli-key";
import { createInBrowserContext, expect, newClient, send, test } from "./support/browser";
import { BASE_URL } from "./support/client";
import { expectAccessible } from "./support/accessibility";
import { fitsPhone, signedIn } from "./support/dashboard-pages";
import { api } from "./support/gateway";
import { docsScreenshot } from "./support/docs-screenshots";

test.describe.configure({ timeout: 120_000 });
// A zone with a name that is not UTC, so a chart that does not say its zone cannot pass by accident.
test.use({ timezoneId: "Europe/Berlin", locale: "en-US" });

/** What a plain-http LAN origin has: no async clipboard, not a secure context; copies are recorded in `__copied`. */
async function plainHttpClipboard(page: Page) {
  await page.addInitScript(() => {
    Object.defineProperty(Navigator.prototype, "clipboard", { get: () => undefined, configurable: true });
    Object.defineProperty(window, "isSecureContext", { get: () => false, configurable: true });
    const w = window as unknown as { __copied: string[] };
    w.__copied = [];
    document.addEventListener(
      "copy",
      () => {
        const a = document.activeElement as HTMLTextAreaElement | null;
        w.__copied.push(a && typeof a.value === "string" ? a.value.slice(a.selectionStart, a.selectionEnd) : String(document.getSelection()));
      },
      true,
    );
  });
}
const copied = (page: Page) => page.evaluate(() => (window as unknown as { __copied: string[] }).__copied);

test("portal chart: the y-axis ends at the maximum rounded up and shows it whole; bars side by side; bucket and zone on the axis and in the tooltip", async ({
  page,
}) => {
  const run = randomBytes(4).toString("hex");
  const tenant = `kit-${run}`;
  const admin = (await createOutboundKey(`kit-${run}`)).key;
  const call = (method: string, path: string) => fetch(`${BASE_URL}/outbound/api/v1${path}`, { method, headers: { authorization: `Bearer ${admin}` } });
  expect((await call("PUT", `/tenants/${tenant}`)).status).toBe(201);
  // 800 delivered and 120 failed attempts in this hour, 37 delivered an hour ago: one insert, no deliveries needed.
  await getPool().query(
    `INSERT INTO outbound_attempts (id, event_id, tenant_id, destination_id, destination_type, topic, status, attempt_number, manual, latency_ms, time)
     SELECT 'att_kit_' || $1 || '_' || g, 'evt_kit_' || $1 || '_' || g, $2, 'des_kit_' || $1, 'webhook', 'order.created',
            CASE WHEN g <= 800 OR g > 920 THEN 'success' ELSE 'failed' END, 0, false, 12,
            CASE WHEN g > 920 THEN now() - interval '1 hour' ELSE now() - interval '1 second' END
     FROM generate_series(1, 957) g`,
    [run, tenant],
  );
  const portal = await (await call("GET", `/tenants/${tenant}/portal`)).json();
  await page.goto(portal.redirect_url as string);
  await page.waitForURL((u) => u.pathname === "/portal");
  await expect(page.getByTestId("delivery-totals")).toHaveText("837 delivered · 120 failed", { timeout: 15_000 });

  const chart = page.getByTestId("delivery-chart");
  const ticks = chart.locator(".recharts-yAxis-tick-labels .recharts-cartesian-axis-tick-value");
  await expect(ticks).toHaveText(["0", "200", "400", "600", "800"]);
  // Every tick label lies inside the chart: "800" is not cut to "00".
  const overhang = await chart.evaluate((el) => {
    const svg = el.querySelector(".recharts-wrapper > svg.recharts-surface")!.getBoundingClientRect();
    return Math.min(
      ...[...el.querySelectorAll(".recharts-yAxis-tick-labels .recharts-cartesian-axis-tick-value")].map((t) => t.getBoundingClientRect().left - svg.left),
    );
  });
  expect(overhang).toBeGreaterThanOrEqual(0);

  // Bars side by side on one baseline; the failed bar is 120/800 of the delivered one (stacked, it would sit on top of it).
  const bars = await chart.locator(".recharts-bar-rectangle").evaluateAll((els) =>
    els
      .map((e) => e.getBoundingClientRect())
      .filter((r) => r.height > 0)
      .map((r) => ({ bottom: Math.round(r.bottom), height: r.height })),
  );
  expect(bars).toHaveLength(3);
  expect(new Set(bars.map((b) => b.bottom)).size).toBe(1);
  const [delivered, failed, earlier] = [...bars].sort((a, b) => b.height - a.height).map((b) => b.height);
  expect(failed / delivered).toBeGreaterThan(0.12);
  expect(failed / delivered).toBeLessThan(0.18);
  expect(earlier / delivered).toBeLessThan(0.08);

  await expect(chart.getByTestId("chart-axis-caption")).toHaveText("1 h buckets · times in GMT+1");
  const tallestIndex = await chart
    .locator(".recharts-bar-rectangle")
    .evaluateAll((els) => els.map((e) => e.getBoundingClientRect().height).reduce((best, h, i, all) => (h > all[best] ? i : best), 0));
  await chart.locator(".recharts-bar-rectangle").nth(tallestIndex).hover();
  const tooltip = chart.locator(".recharts-tooltip-wrapper");
  await expect(tooltip).toContainText("GMT+1 · 1 h bucket");
  await expect(tooltip).toContainText("Delivered : 800");
  await expect(tooltip).toContainText("Failed : 120");
  await page.mouse.move(0, 0);
  await expectAccessible(page);
  // At a phone's width (the chart follows its container once it has measured it again).
  await page.setViewportSize({ width: 390, height: 844 });
  await expect
    .poll(() =>
      page.evaluate(() =>
        [...document.querySelectorAll("body *")]
          .filter((e) => e.getBoundingClientRect().right > 391 && getComputedStyle(e).visibility !== "hidden" && !e.closest(".overflow-hidden"))
          .map((e) => `${e.tagName.toLowerCase()}.${String(e.className).slice(0, 40)}`)
          .slice(0, 5),
      ),
    )
    .toEqual([]);
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  await expect(ticks.last()).toHaveText("800");
  await docsScreenshot(chart, "docs/portal/delivery-chart-390.png");
});

test("first run: console home → dashboard; Overview offers the first connection; Settings: keys, copy on plain http, styled revoke, users, CLI key; the link names its account", async ({
  page,
  browser,
}) => {
  await page.goto("/");
  await page.getByTestId("dashboard-link").click();
  await expect(page).toHaveURL(/\/dashboard\/sign-in$/);

  const team = await signedIn(page);
  await expect(page.getByTestId("get-started")).toBeVisible();
  // Counts are bars, levels and rates lines (one chart type per measure).
  await expect(page.getByTestId("chart-0").locator("figure")).toHaveAttribute("data-chart-kind", "bars", { timeout: 30_000 });
  await expect(page.getByTestId("chart-3").locator("figure")).toHaveAttribute("data-chart-kind", "lines");
  await expect(page.getByTestId("chart-0").getByTestId("chart-axis-caption")).toHaveText("1 h buckets · times in GMT+1");
  await expectAccessible(page);
  await fitsPhone(page, "overview-first-run");
  await page.getByTestId("first-connection").click();
  await expect(page).toHaveURL(/\/dashboard\/connections\/new$/);

  // Settings, by keyboard from the sidebar; copies recorded as a plain-http origin makes them.
  await plainHttpClipboard(page);
  await page.goto("/dashboard");
  await page.getByRole("link", { name: "Settings", exact: true }).focus();
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(/\/dashboard\/settings$/);
  const card = page.getByTestId("team");
  await expect(card.getByRole("heading", { name: "dashboard pages" })).toBeVisible();
  await card.getByTestId("new-key-name").fill("deploy");
  await card.getByTestId("new-key-name").press("Enter");
  const key = (await card.getByTestId("new-key-value").textContent())!.trim();
  expect((await api({ apiKey: key }, "GET", "/2025-07-01/sources")).status).toBe(200);

  // Copy without navigator.clipboard: the fallback copies the key and says so.
  const copy = card.getByRole("button", { name: "Copy the api key" });
  await copy.click();
  await expect(copy).toHaveText("Copied");
  expect(await copied(page)).toEqual([key]);

  // One time format: relative, the exact zoned time on hover.
  const row = card.getByTestId("key-row").filter({ hasText: "deploy" });
  await expect(row.locator("time").first()).toHaveText(/^(just now|\d+s ago)$/);
  await expect(row.locator("time").first()).toHaveAttribute("title", /GMT\+1$/);

  // The read-only views of an operator.
  await expect(page.getByTestId("outbound-settings")).toContainText("MAX_RETRY_LIMIT");
  await expect(page.getByTestId("portal-branding")).toContainText("Brand colour");
  await expectAccessible(page);
  await fitsPhone(page, "settings");

  // Revoke: a styled dialog asks, never window.confirm.
  const native: string[] = [];
  page.on("dialog", (d) => void d.dismiss().then(() => native.push(d.message())));
  await row.getByRole("button", { name: /^Revoke key deploy/ }).click();
  const ask = page.getByRole("dialog", { name: /^Revoke the key/ });
  await expect(ask).toBeVisible();
  await expect(ask.getByRole("button", { name: "Cancel" })).toBeFocused();
  await ask.getByRole("button", { name: "Revoke key" }).click();
  await expect(row.getByText("Revoked", { exact: true })).toBeVisible();
  expect(native).toEqual([]);
  expect((await api({ apiKey: key }, "GET", "/2025-07-01/sources")).status).toBe(401);

  // The CLI key: replaced after a styled confirmation, shown once, and it is this team's.
  await page.getByTestId("replace-cli-key").click();
  await page.getByRole("dialog", { name: "Replace the CLI key?" }).getByRole("button", { name: "Replace CLI key" }).click();
  const cliKey = (await page.getByTestId("new-cli-key-value").textContent())!.trim();
  expect(await teamOfCliKey(cliKey)).toBe(team.teamId);

  // A new user without a password gets a one-time link; its page names the account.
  const email = `kit-${randomBytes(4).toString("hex")}@example.test`;
  await card.getByTestId("new-user-email").fill(email);
  await card.getByTestId("create-user").click();
  const link = (await card.getByTestId("new-user-link-value").textContent())!.trim();
  const other = await newClient(browser);
  try {
    const linkPage = await other.newPage();
    await linkPage.goto(link.replace(/^https?:\/\/[^/]+/, BASE_URL));
    await expect(linkPage.getByTestId("link-account")).toContainText(`For ${email} in the team dashboard pages.`);
    await expectAccessible(linkPage);
  } finally {
    await other.close();
  }
});

test("console: copying on a plain-http origin without navigator.clipboard works, and a failed copy says so", async ({ page }) => {
  await plainHttpClipboard(page);
  const src = await createInBrowserContext(page);
  await send(src.ingest_url, "/kit", { headers: { "content-type": "application/json" }, body: JSON.stringify({ hello: "kit" }) });
  await page.goto(`/${src.id}`);
  const detail = page.getByTestId("request-detail");
  await expect(detail.getByTestId("request-body")).toContainText('"hello": "kit"');
  await detail.getByTestId("copy-body").click();
  await expect(detail.getByTestId("copy-body")).toHaveText("Copied");
  expect(JSON.parse((await copied(page))[0])).toEqual({ hello: "kit" });

  // An icon-only copy button that fails shows it, next to itself (not only to screen readers).
  await page.evaluate(() => {
    document.execCommand = () => false;
  });
  const copyId = detail.getByRole("button", { name: "Copy request ID" });
  await copyId.click();
  await expect(copyId.getByText("Copy failed", { exact: true })).toBeVisible();
  const box = await copyId.getByText("Copy failed", { exact: true }).boundingBox();
  expect(box!.width).toBeGreaterThan(20);
});
