/**
 * Browser tests of large and binary bodies (docs/dashboard.md "Bodies", docs/console.md "Request details"),
 * in Debian's Chromium against the test server and real PostgreSQL: a ~200 KB JSON body says it is a cut
 * preview (how much of how many bytes) with a raw download; a JSON document over 16 KiB opens folded and a
 * folded node opens on a click and on the keyboard; a PNG body is previewed as an image and shown as hex
 * and base64; axe clean in light and dark. Both the console (a test URL) and the dashboard (a gateway
 * connection) are checked.
 */
import { readFile } from "node:fs/promises";
import { crc32, deflateSync } from "node:zlib";
import type { Locator, Page } from "@playwright/test";
import { closeDb, createInBrowserContext, expect, test } from "./support/browser";
import { expectAccessible } from "./support/accessibility";
import { signedIn } from "./support/dashboard-pages";
import { api } from "./support/gateway";

/** A PNG chunk: length, type, data, CRC of type and data. */
function chunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, "latin1"), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}

/** A 4×4 red PNG (8-bit RGB), built here so its bytes are known. */
const PNG = (() => {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(4, 0);
  ihdr.writeUInt32BE(4, 4);
  ihdr.set([8, 2, 0, 0, 0], 8);
  const row = Buffer.from([0, ...Array.from({ length: 4 }, () => [255, 0, 0]).flat()]);
  const pixels = deflateSync(Buffer.concat([row, row, row, row]));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", ihdr),
    chunk("IDAT", pixels),
    chunk("IEND", Buffer.alloc(0)),
  ]);
})();

/** A JSON document of about `kb` KB: an array of orders, each an object with a nested array. */
function bigJson(kb: number): string {
  const items = [];
  for (let i = 0; JSON.stringify(items).length < kb * 1000; i++) {
    items.push({ id: `ord_${i}`, amount: i * 10, lines: [{ sku: `sku-${i}`, qty: 1 + (i % 3) }], note: "x".repeat(40) });
  }
  return JSON.stringify({ kind: "batch", orders: items });
}

test.afterAll(async () => {
  await closeDb();
});

async function post(url: string, contentType: string, body: string | Buffer) {
  const res = await fetch(url, { method: "POST", headers: { "content-type": contentType }, body: typeof body === "string" ? body : new Uint8Array(body) });
  expect(res.status, await res.text()).toBe(200);
}

/** The image is decoded (a real image from a data: or blob: URL, never markup). */
async function expectImage(img: Locator) {
  await expect(img).toBeVisible();
  await expect(img).toHaveAttribute("src", /^(data:image\/png;base64,|blob:)/);
  await expect.poll(() => img.evaluate((el) => (el as HTMLImageElement).naturalWidth)).toBe(4);
}

/** The PNG's hex dump starts with its signature; its base64 is the bytes sent. */
async function expectHex(scope: Locator | Page) {
  await expect(scope.getByTestId("body-hex")).toContainText("00000000  89 50 4e 47 0d 0a 1a 0a");
}

/** A folded tree: the root is open, its `orders` array folded; a click opens it, a key press folds it back. */
async function expectFolding(scope: Locator) {
  const toggles = scope.getByTestId("json-toggle");
  await expect(toggles.first()).toHaveAttribute("aria-expanded", "true");
  const orders = scope.getByRole("button", { name: /^Expand root\.orders \(\d+ items\)$/ });
  await expect(orders).toHaveAttribute("aria-expanded", "false");
  await expect(scope.getByText('"ord_0"', { exact: true })).toHaveCount(0);
  await orders.click();
  await expect(scope.getByRole("button", { name: /^Collapse root\.orders/ })).toHaveAttribute("aria-expanded", "true");
  // Only the opened level is rendered: its items stay folded (one toggle each, at most a page of them).
  const items = scope.getByRole("button", { name: /^Expand root\.orders\[\d+\]/ });
  expect(await items.count()).toBeGreaterThan(10);
  expect(await items.count()).toBeLessThanOrEqual(200);
  await expect(scope.getByTestId("json-more")).toBeVisible();
  const first = scope.getByRole("button", { name: /^Expand root\.orders\[0\] / });
  await first.focus();
  await first.press("Enter");
  await expect(scope.getByText('"ord_0"', { exact: true })).toHaveCount(1);
  await scope.getByRole("button", { name: /^Collapse root\.orders \(/ }).press(" ");
  await expect(scope.getByText('"ord_0"', { exact: true })).toHaveCount(0);
}

test("console: a 200 KB JSON body is a cut preview with a raw download; a 40 KB one folds; a PNG is an image and hex; axe clean", async ({ page }) => {
  const src = await createInBrowserContext(page);
  const big = bigJson(200);
  await post(`${src.ingest_url}/big`, "application/json", big);
  await post(`${src.ingest_url}/mid`, "application/json", bigJson(40));
  await post(`${src.ingest_url}/png`, "image/png", PNG);

  await page.goto(`/${src.id}`);
  const rows = page.getByTestId("request-row");
  await expect(rows).toHaveCount(3);
  const detail = page.getByTestId("request-detail");

  // Newest first: the PNG.
  await expect(detail.getByTestId("request-path")).toHaveText("/png");
  await expectImage(detail.getByTestId("body-image"));
  await expectHex(detail);
  await expect(detail.getByTestId("request-body")).toHaveText(PNG.toString("base64"));
  await expectAccessible(page);

  await rows.nth(1).click();
  await expect(detail.getByTestId("request-path")).toHaveText("/mid");
  await expectFolding(detail.getByTestId("request-body"));

  await rows.nth(2).click();
  await expect(detail.getByTestId("request-path")).toHaveText("/big");
  const notice = detail.getByTestId("body-cut-notice");
  await expect(notice).toContainText(`first 64 KiB of ${Math.round(big.length / 1024)} KiB (${big.length.toLocaleString("en")} bytes) shown`);
  const href = await notice.getByTestId("cut-download").getAttribute("href");
  expect(href).toMatch(new RegExp(`^/${src.id}/requests/req_\\w+/raw$`));
  const raw = await page.request.get(href!);
  expect((await raw.body()).toString("utf8")).toBe(big);
  await expect(detail.getByTestId("copy-body")).toBeVisible();
  await expectAccessible(page);
});

test("dashboard: a cut JSON request says so and downloads every byte; binary bytes are shown as hex; axe clean", async ({ page }) => {
  const team = await signedIn(page);
  const conn = await api(team, "POST", "/2025-07-01/connections", {
    name: "bodies",
    source: { name: "bodies-in" },
    destination: { name: "nowhere", config: { url: "http://127.0.0.1:9/in" } },
  });
  expect(conn.status, JSON.stringify(conn.json)).toBe(200);
  const url = (conn.json as { source: { url: string } }).source.url;
  const big = bigJson(200);
  await post(url, "application/json", big);
  // Gateway sources accept JSON, text, XML, forms, JWT and NDJSON only: the PNG's bytes come as text/plain.
  await post(url, "text/plain", PNG);
  const list = await api(team, "GET", "/2025-07-01/requests?include=data");
  const models = (list.json as { models: { id: string; data: { body_encoding: string } }[] }).models;
  expect(models).toHaveLength(2);
  const bigId = models.find((m) => m.data.body_encoding === "text")!.id;
  const pngId = models.find((m) => m.data.body_encoding === "base64")!.id;

  await page.goto(`/dashboard/requests?id=${bigId}`);
  const body = page.getByTestId("record-body");
  await expect(body).toBeVisible();
  await expect(page.getByTestId("body-cut-notice")).toContainText("Cut preview: first 64 KiB");
  const downloading = page.waitForEvent("download");
  await page.getByTestId("cut-download").click();
  const file = await (await downloading).path();
  expect(await readFile(file, "utf8")).toBe(big);
  await expect(page.getByTestId("json-copy")).toBeVisible();
  await expectAccessible(page);

  await page.goto(`/dashboard/requests?id=${pngId}`);
  await expectHex(page);
  await expect(page.getByTestId("download-body")).toBeVisible();
  await expectAccessible(page);
});
