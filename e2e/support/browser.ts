/**
 * Helpers for the Playwright browser tests (e2e/*.spec.ts) against the server `npm test` starts
 * (HOOKYARD_URL, which trusts X-Forwarded-For).
 *
 * Every test gets a client IP of its own (rate limits: POST / 60/min, GET /new 10/min per IP), and so
 * does every extra browser context made with `newClient`.
 */
import { randomInt } from "node:crypto";
import { test as base, expect, type Browser, type BrowserContext, type BrowserContextOptions, type Page } from "@playwright/test";
import pg from "pg";

export { expect };

export const BASE_URL = (process.env.HOOKYARD_URL ?? "http://127.0.0.1:3000").replace(/\/$/, "");

/** A public source id: 22 base62 characters. */
export const PUBLIC_ID = /^[0-9A-Za-z]{22}$/;
/** The pathname of an inspect page. */
export const INSPECT_PATH = /^\/[0-9A-Za-z]{22}$/;

/** A client IP no other test uses (sent as X-Forwarded-For). */
export function uniqueIp(): string {
  return `10.${randomInt(1, 255)}.${randomInt(0, 255)}.${randomInt(1, 255)}`;
}

/** `test` whose page, context and `request` fixtures send a per-test X-Forwarded-For. */
export const test = base.extend<{ clientIp: string }>({
  // eslint-disable-next-line no-empty-pattern -- Playwright reads a fixture's dependencies from this destructuring, and this one has none
  clientIp: async ({}, use) => {
    await use(uniqueIp());
  },
  extraHTTPHeaders: async ({ clientIp }, use) => {
    await use({ "x-forwarded-for": clientIp });
  },
});

/** A fresh browser context (no cookies) that is its own client IP. Close it at the end of the test. */
export async function newClient(browser: Browser, options: BrowserContextOptions = {}): Promise<BrowserContext> {
  return browser.newContext({
    baseURL: BASE_URL,
    ...options,
    extraHTTPHeaders: { "x-forwarded-for": uniqueIp(), ...options.extraHTTPHeaders },
  });
}

export type TestUrl = { id: string; ingest_url: string; inspect_url: string; type: string; name: string; cli_key: string; cmd_hint: string };

function withId(json: Omit<TestUrl, "id">): TestUrl {
  const id = new URL(json.inspect_url).pathname.slice(1);
  expect(id).toMatch(PUBLIC_ID);
  return { ...json, id };
}

/**
 * Creates a test URL with `POST /` through the context of `page` (its cookie jar: the session cookie
 * lands in that browser context, which then owns the source).
 */
export async function createInBrowserContext(page: Page, body: { type?: string; name?: string } = {}): Promise<TestUrl> {
  const res = await page.request.post("/", { data: body, headers: { accept: "application/json" } });
  expect(res.status(), await res.text()).toBe(201);
  return withId(await res.json());
}

/** Creates a test URL from the test process (no browser, no cookie kept): nobody's browser owns it. */
export async function createFromNode(body: { type?: string; name?: string } = {}): Promise<TestUrl> {
  const res = await fetch(`${BASE_URL}/`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-forwarded-for": uniqueIp() },
    body: JSON.stringify(body),
  });
  expect(res.status, await res.clone().text()).toBe(201);
  return withId((await res.json()) as Omit<TestUrl, "id">);
}

/**
 * Sends a request to an ingest URL from the test process, like curl would (not through a browser).
 * `path` is appended to the ingest URL (e.g. `/orders?x=1`). Expects the source's default 200.
 */
export async function send(
  ingestUrl: string,
  path: string,
  init: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<Response> {
  const res = await fetch(`${ingestUrl}${path}`, { method: init.method ?? "POST", headers: init.headers, body: init.body });
  expect(res.status, `ingest ${init.method ?? "POST"} ${path}: ${await res.clone().text()}`).toBe(200);
  return res;
}

let pool: pg.Pool | undefined;
/** A pg pool on the test database (DATABASE_URL is set by `npm test`). */
export function db(): pg.Pool {
  if (!process.env.DATABASE_URL) throw new Error("DATABASE_URL is not set: run the browser tests through `npm test -- playwright`");
  pool ??= new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 2 });
  return pool;
}

/** Closes the pool of `db()` (call in afterAll). */
export async function closeDb(): Promise<void> {
  await pool?.end();
  pool = undefined;
}

/** Relative luminance (0 black … 1 white) of any CSS colour, resolved by the page itself. */
export async function luminanceOf(page: Page, cssColor: string): Promise<number> {
  return page.evaluate((color) => {
    // Tailwind 4 colours are oklch(); let a canvas turn whatever the browser computed into sRGB bytes.
    const canvas = document.createElement("canvas");
    canvas.width = canvas.height = 1;
    const ctx = canvas.getContext("2d")!;
    ctx.fillStyle = "#ff00ff";
    ctx.fillStyle = color;
    ctx.fillRect(0, 0, 1, 1);
    const [r, g, b, a] = ctx.getImageData(0, 0, 1, 1).data;
    if (a !== 255) throw new Error(`colour ${color} is not opaque (alpha ${a})`);
    const lin = (c: number) => {
      const s = c / 255;
      return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
    };
    return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
  }, cssColor);
}
