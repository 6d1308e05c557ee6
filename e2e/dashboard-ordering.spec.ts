/**
 * Ordered delivery in the dashboard's connection form (docs/dashboard.md "Ordered delivery"), in a real browser
 * against the real server, worker and PostgreSQL: a connection made in the browser with an ordered destination
 * (`on_exhausted: "block"`) whose receiver fails each key's first event; the blocked keys show with their
 * blocking events; releasing one key (by keyboard) and then every key (after the styled confirmation) lets each
 * key's next event go. The page passes axe in light and dark and fits a phone's width.
 */
import { expect, test } from "./support/browser";
import { expectAccessible } from "./support/accessibility";
import { fitsPhone, signedIn } from "./support/dashboard-pages";
import { api } from "./support/gateway";
import { startReceiver } from "./support/receiver";

test.describe.configure({ timeout: 150_000 });

/** The `{customer, seq}` body the receiver got, per delivery. */
type Sent = { customer: string; seq: number };

test("ordered delivery: set in the form, a failing key blocks, Release and Release all let the next events go", async ({ page }) => {
  const receiver = await startReceiver();
  // Each customer's first event fails (no retry rule: a first failure ends it, and blocks its key).
  receiver.respond((req) => ((JSON.parse(req.body.toString()) as Sent).seq === 0 ? { status: 500, body: "down" } : { status: 200, body: "ok" }));
  const delivered = (customer: string, seq: number) =>
    receiver.received.some((r) => {
      const b = JSON.parse(r.body.toString()) as Sent;
      return b.customer === customer && b.seq === seq;
    });
  try {
    const team = await signedIn(page);
    await page.goto("/dashboard/connections/new");
    await page.getByTestId("connection-name").fill("ordered");
    await page.getByTestId("source-name").fill("ordered-src");
    await page.getByTestId("destination-name").fill("ordered-dst");
    await page.getByTestId("destination-url").fill(`${receiver.url}/in`);
    await expect(page.getByTestId("ordering-key")).toHaveCount(0);
    await page.getByTestId("ordering-mode").selectOption("on");
    await page.getByTestId("ordering-on-exhausted").selectOption("block");

    // A key path the API refuses: its 422 shows next to the key field.
    const keyField = page.getByTestId("ordering-key");
    await keyField.fill("query.customer");
    await page.getByTestId("save-connection").click();
    await expect(keyField).toHaveAttribute("aria-invalid", "true");
    const errorId = (await keyField.getAttribute("aria-describedby"))!.split(" ").find((i) => i.endsWith("-error"));
    await expect(page.locator(`[id="${errorId}"]`)).toBeVisible();
    await expectAccessible(page);

    await keyField.fill("body.customer");
    await page.getByTestId("save-connection").click();
    await expect(page).toHaveURL(/\/dashboard\/connections\/web_[^/?]+\?created=1/);
    const connectionId = new URL(page.url()).pathname.split("/").pop()!;
    const created = await api(team, "GET", `/2025-07-01/connections/${connectionId}`);
    const destinationId = created.json.destination.id as string;
    expect((await api(team, "GET", `/2025-07-01/destinations/${destinationId}`)).json.ordering).toEqual({
      key: "body.customer",
      on_exhausted: "block",
      blocked_keys: [],
    });
    // The saved setting fills the form again.
    await expect(page.getByTestId("ordering-mode")).toHaveValue("on");
    await expect(page.getByTestId("ordering-key")).toHaveValue("body.customer");
    await expect(page.getByTestId("blocked-count")).toHaveText("No key is blocked.");

    // Two customers, two events each, sent one after the other (accepted in this order).
    const sourceUrl = (await page.getByTestId("source-url").textContent())!.trim();
    for (const [customer, seq] of [
      ["alice", 0],
      ["bob", 0],
      ["alice", 1],
      ["bob", 1],
    ] as const) {
      const res = await fetch(sourceUrl, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ customer, seq }) });
      expect(res.status).toBe(200);
    }

    // Both first events fail and block their keys; the second events wait (the page re-reads every 10 s).
    const rows = page.getByTestId("blocked-key");
    await expect(rows).toHaveCount(2, { timeout: 45_000 });
    await expect(page.getByTestId("blocked-count")).toHaveText(/^2 blocked keys/);
    // Oldest block first, on the page as in the API; which customer's first delivery failed first is up to the
    // worker (they run side by side).
    const blocks = (await api(team, "GET", `/2025-07-01/destinations/${destinationId}`)).json.ordering.blocked_keys as {
      key: string;
      event_id: string;
      blocked_at: string;
    }[];
    expect(blocks.map((b) => b.key).sort()).toEqual(["alice", "bob"]);
    const [first, second] = blocks.map((b) => b.key);
    await expect(rows.first()).toHaveAttribute("data-key", first);
    const firstRow = rows.and(page.locator(`[data-key="${first}"]`));
    await expect(firstRow.getByTestId("blocking-event")).toHaveText(blocks[0].event_id);
    await expect(firstRow.getByTestId("blocking-event")).toHaveAttribute("href", `/dashboard/events?id=${blocks[0].event_id}`);
    await expect(firstRow.locator("time").filter({ visible: true })).toHaveAttribute("datetime", blocks[0].blocked_at);
    expect(delivered("alice", 1) || delivered("bob", 1)).toBe(false);
    await expectAccessible(page);
    await fitsPhone(page, "connection-ordering");

    // Keyboard: from the last ordering field, Tab reaches Release all, then the first row's event link, its copy
    // button and its Release; Enter releases that key, whose row goes at once, and its next event is delivered.
    await page.getByTestId("ordering-on-exhausted").focus();
    await page.keyboard.press("Tab");
    await expect(page.getByTestId("release-all")).toBeFocused();
    await page.keyboard.press("Tab");
    await expect(firstRow.getByTestId("blocking-event")).toBeFocused();
    await page.keyboard.press("Tab");
    await page.keyboard.press("Tab");
    await expect(page.getByRole("button", { name: `Release key ${first}` })).toBeFocused();
    await page.keyboard.press("Enter");
    await expect(rows).toHaveCount(1);
    await expect(rows.first()).toHaveAttribute("data-key", second);
    await expect.poll(() => delivered(first, 1), { timeout: 30_000 }).toBe(true);
    expect(delivered(second, 1)).toBe(false);

    // Release all asks first (Cancel is focused; Escape keeps the key blocked), then releases the other key.
    await page.getByTestId("release-all").click();
    const dialog = page.getByRole("dialog", { name: "Release every blocked key?" });
    await expect(dialog).toBeVisible();
    await expect(dialog.getByRole("button", { name: "Cancel" })).toBeFocused();
    await expectAccessible(page);
    await page.keyboard.press("Escape");
    await expect(dialog).toBeHidden();
    await expect(rows).toHaveCount(1);
    await page.getByTestId("release-all").click();
    await dialog.getByRole("button", { name: "Release all" }).click();
    await expect(rows).toHaveCount(0);
    await expect(page.getByTestId("blocked-count")).toHaveText("No key is blocked.");
    await expect.poll(() => delivered(second, 1), { timeout: 30_000 }).toBe(true);
    expect((await api(team, "GET", `/2025-07-01/destinations/${destinationId}`)).json.ordering.blocked_keys).toEqual([]);

    // Turning ordering off saves `ordering: null`.
    await page.getByTestId("ordering-mode").selectOption("off");
    await page.getByTestId("save-connection").click();
    await expect(page.getByRole("status").filter({ hasText: "Saved." })).toBeVisible();
    expect((await api(team, "GET", `/2025-07-01/destinations/${destinationId}`)).json).not.toHaveProperty("ordering");
    await expect(page.getByTestId("blocked-keys")).toHaveCount(0);
  } finally {
    await receiver.close();
  }
});
