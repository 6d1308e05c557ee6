/**
 * `npm run bench:explorer` (docs/benchmarks.md "Explorers"): the dashboard's event explorers over a large
 * team. Seeds BENCH_EVENTS events (default 1,000,000; half as many requests, two connections per source,
 * four sources and four destinations, their attempts and raw data) spread over BENCH_DAYS days (default 5)
 * with bulk SQL (generate_series), then times the API calls the explorer pages make (the same endpoints,
 * parameters and page size), sequentially: BENCH_ITERATIONS each (default 30, after 3 warm-ups), p50/p95.
 * Aim (docs/benchmarks.md): every call p95 ≤ 300 ms. With BENCH_PAGE=1 (default) it also signs a dashboard
 * user in with Chromium (CHROMIUM_PATH, default /usr/bin/chromium) and times the click on Events until 100
 * rows are on screen, and a cold load of /dashboard/events?status=FAILED: in the page (from the click event,
 * or the navigation's start, to the frame that shows them; the aim: click p50 ≤ 300 ms) and as the driver
 * sees them (adding Playwright's own round trips before the click and after the rows).
 * Env: BENCH_DATABASE_URL reuses a database already seeded by an earlier run (its migrations are applied
 * by the server; nothing is seeded when it holds the events); with BENCH_SERVER_URL too, a server already
 * running on it is measured (e.g. one of another checkout, for a before/after). BENCH_ONLY: a regular
 * expression of the cases to run. BENCH_TRACE=<file>: one more click, traced by Chromium into that file, with the
 * main thread's busy time by kind of work printed. A call taking longer than BENCH_CALL_TIMEOUT s (default 30) counts as
 * that long and ends its case. BENCH_HOLD=1 keeps the server and database up at the end (Ctrl-C) for EXPLAIN.
 */
import os from "node:os";
import pg from "pg";
import { startServer, startTestDatabase, type TestDatabase } from "../../e2e/support/servers";
import { buildIfNeeded } from "../build-if-needed";
import { log, percentile } from "./common";

const total = Number(process.env.BENCH_EVENTS ?? 1_000_000);
const days = Number(process.env.BENCH_DAYS ?? 5);
const iterations = Number(process.env.BENCH_ITERATIONS ?? 30);
const withPage = process.env.BENCH_PAGE !== "0";
const AIM_MS = 300;

buildIfNeeded(log);
let db: TestDatabase | null = null;
const dbUrl = process.env.BENCH_DATABASE_URL ?? (db = await startTestDatabase({ dataDir: ".data/bench-explorer-pg" })).url;
process.env.DATABASE_URL = dbUrl;
const apiKey = "hky_bench_explorer_key";
const server = process.env.BENCH_SERVER_URL
  ? { url: process.env.BENCH_SERVER_URL, stop: async () => {} }
  : await startServer({
      DATABASE_URL: dbUrl,
      WORKER_ENABLED: "false",
      GATEWAY_API_KEY: apiKey,
      GATEWAY_API_RATE_LIMIT: "1000000",
      // Every run signs a new user in from 127.0.0.1: back-to-back runs would pass the default 10 per 15 minutes.
      DASHBOARD_SIGN_IN_RATE_LIMIT: "1000000",
    });
const callTimeoutMs = Number(process.env.BENCH_CALL_TIMEOUT ?? 30) * 1000;
const only = new RegExp(process.env.BENCH_ONLY ?? ".");
const V = `${server.url}/api/2025-07-01`;

/** GET `path` of the gateway API as the bench team; throws on a non-200 answer. */
async function get<T>(path: string): Promise<T> {
  const res = await fetch(`${V}/${path}`, { headers: { authorization: `Bearer ${apiKey}` }, signal: AbortSignal.timeout(callTimeoutMs) });
  if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}
async function post<T>(path: string, body: unknown): Promise<T> {
  const res = await fetch(`${V}/${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  if (res.status !== 200) throw new Error(`POST ${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

const client = new pg.Client({ connectionString: dbUrl });
await client.connect();

type Connection = { id: string; team_id: string; source: { id: string }; destination: { id: string } };
type Paged = { models: { id: string }[]; pagination: { next?: string } };
const existing = await get<{ models: Connection[] }>("connections?limit=250&order_by=created_at&dir=asc");
let connections = existing.models;
if (connections.length < 8) {
  connections = [];
  const sources: string[] = [];
  const destinations: string[] = [];
  // Four sources, two connections each, to four destinations (connection j of source s → destination (s + j) % 4).
  for (let s = 0; s < 4; s++)
    for (let j = 0; j < 2; j++) {
      const d = (s + j) % 4;
      const c = await post<Connection>("connections", {
        name: `c${s}-${j}`,
        ...(sources[s] ? { source_id: sources[s] } : { source: { name: `source-${s}` } }),
        ...(destinations[d] ? { destination_id: destinations[d] } : { destination: { name: `shop-${d}`, config: { url: `http://127.0.0.1:9/${d}` } } }),
      });
      sources[s] = c.source.id;
      destinations[d] = c.destination.id;
      connections.push(c);
    }
}
const teamId = connections[0].team_id;
const { n: seeded } = (await client.query<{ n: number }>("SELECT count(*)::int AS n FROM events WHERE team_id = $1", [teamId])).rows[0];

if (seeded < total) {
  const requests = total / 2;
  const end = Date.now() - 60_000;
  const start = end - days * 86_400_000;
  const step = Math.floor((end - start) / requests);
  log(`seeding ${requests} requests, ${total} events and their attempts over ${days} days`);
  const t0 = Date.now();
  await client.query("SELECT hookyard_ensure_partitions($1::date, $2::date)", [
    new Date(start).toISOString().slice(0, 10),
    new Date(end).toISOString().slice(0, 10),
  ]);
  // Arrays indexed by source * 2 + connection + 1.
  const conn = connections.map((c) => c.id);
  const dest = connections.map((c) => c.destination.id);
  const src = connections.map((c) => c.source.id);
  const chunk = 50_000;
  for (let from = 0; from < requests; from += chunk) {
    const to = Math.min(requests, from + chunk) - 1;
    const args = [from, to, start, step, teamId];
    // Request k arrives at start + k·step ms; its id starts with that time (ids are unique: one request per ms).
    await client.query(
      `INSERT INTO requests (id, team_id, source_id, verified, ingested_at, created_at, updated_at)
       SELECT hookyard_id_bound('req_', $3::bigint + k * $4), $5, ($6::text[])[(k % 4) * 2 + 1], true, t, t, t
         FROM generate_series($1::bigint, $2::bigint) k, LATERAL (SELECT to_timestamp(($3::bigint + k * $4) / 1000.0) AS t) x`,
      [...args, src],
    );
    await client.query(
      `INSERT INTO request_raw_data (request_id, method, path, query, headers, body, body_size)
       SELECT hookyard_id_bound('req_', $3::bigint + k * $4), 'POST', '/orders/' || (k % 5000), CASE WHEN k % 3 = 0 THEN 'shop=' || (k % 7) ELSE '' END,
              jsonb_build_object('content-type', 'application/json', 'x-topic', topic), convert_to(body, 'UTF8'), octet_length(body)
         FROM generate_series($1::bigint, $2::bigint) k,
              LATERAL (SELECT (ARRAY['order.created','order.paid','order.shipped','refund.created'])[k % 4 + 1] AS topic) tp,
              LATERAL (SELECT json_build_object('type', topic, 'id', 'ord_' || k, 'customer', 'cus_' || (k % 1000), 'amount', k % 10000, 'note', repeat('x', 100))::text AS body) b
        WHERE $5::text IS NOT NULL`,
      args,
    );
    // Two events per request (one per connection of its source), 1 and 2 ms after it; status by a spread of the event number.
    await client.query(
      `INSERT INTO events (id, team_id, webhook_id, source_id, destination_id, request_id, status, attempts, response_status, error_code,
                           last_attempt_at, next_attempt_at, successful_at, created_at, updated_at)
       SELECT hookyard_id_bound('evt_', ms), $5, ($6::text[])[c], ($8::text[])[c], ($7::text[])[c], hookyard_id_bound('req_', $3::bigint + k * $4), status,
              CASE status WHEN 'SUCCESSFUL' THEN 1 WHEN 'FAILED' THEN 2 WHEN 'CANCELLED' THEN 1 ELSE 0 END,
              CASE status WHEN 'SUCCESSFUL' THEN 200 WHEN 'FAILED' THEN 500 WHEN 'CANCELLED' THEN 503 END, NULL,
              CASE WHEN status IN ('SUCCESSFUL', 'FAILED', 'CANCELLED') THEN t + interval '1 second' END,
              CASE WHEN status = 'SCHEDULED' THEN t + interval '1 hour' END,
              CASE WHEN status = 'SUCCESSFUL' THEN t + interval '1 second' END, t, t
         FROM generate_series($1::bigint, $2::bigint) k, generate_series(0, 1) j,
              LATERAL (SELECT $3::bigint + k * $4 + 1 + j AS ms, (k % 4) * 2 + j + 1 AS c) m,
              LATERAL (SELECT to_timestamp(ms / 1000.0) AS t,
                              CASE WHEN (2 * k + j) * 37 % 100 < 88 THEN 'SUCCESSFUL' WHEN (2 * k + j) * 37 % 100 < 95 THEN 'FAILED'
                                   WHEN (2 * k + j) * 37 % 100 < 97 THEN 'SCHEDULED' WHEN (2 * k + j) * 37 % 100 < 98 THEN 'QUEUED'
                                   WHEN (2 * k + j) * 37 % 100 < 99 THEN 'HOLD' ELSE 'CANCELLED' END AS status) s`,
      [...args, conn, dest, src],
    );
    // Attempts of the delivered events: one for a successful or cancelled one, two for a failed one.
    await client.query(
      `INSERT INTO attempts (id, team_id, event_id, destination_id, attempt_number, trigger, status, response_status, body, requested_url, http_method,
                             successful_at, delivered_at, responded_at, delivery_latency, response_latency, created_at, updated_at)
       SELECT hookyard_id_bound('atm_', e.ms + 10 * n), $5, hookyard_id_bound('evt_', e.ms), e.dest, n, CASE WHEN n = 1 THEN 'INITIAL' ELSE 'AUTOMATIC' END,
              CASE WHEN e.status = 'SUCCESSFUL' THEN 'SUCCESSFUL' ELSE 'FAILED' END, CASE WHEN e.status = 'SUCCESSFUL' THEN 200 ELSE 500 END,
              '{"ok":true}', 'http://127.0.0.1:9/orders', 'POST', CASE WHEN e.status = 'SUCCESSFUL' THEN e.t END, e.t, e.t, 3 + e.ms % 50, 20 + e.ms % 400,
              to_timestamp((e.ms + 10 * n) / 1000.0), to_timestamp((e.ms + 10 * n) / 1000.0)
         FROM (SELECT ms, to_timestamp(ms / 1000.0) AS t, ($6::text[])[c] AS dest,
                      CASE WHEN (2 * k + j) * 37 % 100 < 88 THEN 'SUCCESSFUL' WHEN (2 * k + j) * 37 % 100 < 95 THEN 'FAILED'
                           WHEN (2 * k + j) * 37 % 100 < 99 THEN 'PENDING' ELSE 'CANCELLED' END AS status
                 FROM generate_series($1::bigint, $2::bigint) k, generate_series(0, 1) j,
                      LATERAL (SELECT $3::bigint + k * $4 + 1 + j AS ms, (k % 4) * 2 + j + 1 AS c) m) e,
              generate_series(1, CASE e.status WHEN 'FAILED' THEN 2 WHEN 'PENDING' THEN 0 ELSE 1 END) n`,
      [...args, dest],
    );
    log(`  ${to + 1} requests (${Math.round((Date.now() - t0) / 1000)} s)`);
  }
  await client.query("VACUUM ANALYZE requests, request_raw_data, events, attempts");
  log(`seeded in ${Math.round((Date.now() - t0) / 1000)} s`);
}

// What the explorer pages ask (components/dashboard/Explorer.tsx): the page of 100, one filter at a time, together, and the next page.
const dest0 = connections[0].destination.id;
const conn0 = connections[0].id;
const dayMs = 86_400_000;
const rangeFrom = new Date(Date.now() - 2 * dayMs).toISOString();
const rangeTo = new Date(Date.now() - 2 * dayMs + 6 * 3_600_000).toISOString();
const range = `created_at[gte]=${rangeFrom}&created_at[lte]=${rangeTo}`;
// Events and requests are listed with their data (the rows show method, path and topic), attempts without.
const base = (path: string) => `${path}${path.includes("?") ? "&" : "?"}${path.startsWith("attempts") ? "" : "include=data&"}limit=100`;
const cases: { name: string; path: string }[] = [
  { name: "events: first page", path: base("events") },
  { name: "events: first page without data", path: "events?limit=100" },
  { name: "events: status=FAILED", path: base("events?status=FAILED") },
  { name: "events: status=CANCELLED (1 %)", path: base("events?status=CANCELLED") },
  { name: "events: destination", path: base(`events?destination_id=${dest0}`) },
  { name: "events: connection", path: base(`events?webhook_id=${conn0}`) },
  { name: "events: 6 h two days ago", path: base(`events?${range}`) },
  { name: "events: status + destination + 6 h", path: base(`events?status=FAILED&destination_id=${dest0}&${range}`) },
  { name: "events: search_term (a customer)", path: base("events?search_term=cus_417%22") },
  { name: "requests: first page", path: base("requests") },
  { name: "requests: status=accepted + source", path: base(`requests?status=accepted&source_id=${connections[0].source.id}`) },
  { name: "requests: 6 h two days ago", path: base(`requests?${range}`) },
  { name: "requests: body search (one order)", path: base("requests?search_term=ord_123457%22") },
  { name: "attempts: first page", path: base("attempts") },
  { name: "attempts: status=FAILED + destination", path: base(`attempts?status=FAILED&destination_id=${dest0}`) },
  { name: "attempts: 6 h two days ago", path: base(`attempts?${range}`) },
];
// Next pages: the cursor of each list's first answer (the 2nd page), and of its filtered form.
for (const c of [cases[0], cases[2], cases[4], cases[7], cases[9], cases[13]].filter((c) => only.test(c.name))) {
  const first = await get<Paged>(c.path);
  if (first.pagination.next) cases.push({ name: `${c.name}, next page`, path: `${c.path}&next=${first.pagination.next}` });
}

const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(" ");
log(`${os.cpus().length} cores, ${os.cpus()[0]?.model}, load average ${load()}; ${iterations} calls each`);
const results: { name: string; p50: number; p95: number; max: number; rows: number }[] = [];
console.log(`\n| call (${total.toLocaleString("en")} events, limit 100) | rows | p50 ms | p95 ms | max ms |`);
console.log("|---|---|---|---|---|");
for (const c of cases.filter((c) => only.test(c.name))) {
  const times: number[] = [];
  let rows = 0;
  // A slow call stops after BENCH_CASE_SECONDS (default 20) of samples, with at least 3.
  const until = performance.now() + Number(process.env.BENCH_CASE_SECONDS ?? 20) * 1000;
  for (let i = 0; i < iterations + 3 && (times.length < 3 || performance.now() < until); i++) {
    const t = performance.now();
    const page = await get<Paged>(c.path).catch((err: Error) => {
      if (err.name !== "TimeoutError") throw err;
      return null;
    });
    if (i >= 3 || !page) times.push(performance.now() - t);
    if (!page) break;
    rows = page.models.length;
  }
  times.sort((a, b) => a - b);
  const r = {
    name: `${c.name}${times.length < iterations ? ` (${times.length} calls)` : ""}`,
    p50: percentile(times, 50),
    p95: percentile(times, 95),
    max: times[times.length - 1],
    rows,
  };
  results.push(r);
  console.log(`| ${r.name} | ${r.rows} | ${r.p50.toFixed(0)} | ${r.p95.toFixed(0)} | ${r.max.toFixed(0)} |`);
}
const slow = results.filter((r) => r.p95 > AIM_MS);

let pageOk = true;
if (withPage) {
  const times = await timePage();
  // The aim is the user's wait: from the click event to the frame with 100 rows, measured in the page. The
  // driver's figure adds Playwright's own round trips (actionability checks before the click, polling after).
  for (const t of Object.values(times)) t.sort((a, b) => a - b);
  pageOk = percentile(times.clickInPage, 50) <= AIM_MS;
  console.log(`\n| page (Chromium) | runs | in the page: p50 ms | max ms | by the driver: p50 ms | max ms |`);
  console.log("|---|---|---|---|---|---|");
  const cells = (a: number[]) => `${percentile(a, 50).toFixed(0)} | ${a.at(-1)!.toFixed(0)}`;
  console.log(`| click on Events → 100 rows on screen | ${times.click.length} | ${cells(times.clickInPage)} | ${cells(times.click)} |`);
  console.log(`| load /dashboard/events?status=FAILED → 100 rows | ${times.load.length} | ${cells(times.loadInPage)} | ${cells(times.load)} |`);
}
log(`load average at the end ${load()}`);
const ok = slow.length === 0 && pageOk;
console.log(
  `\n[bench] verdict: ${ok ? "aim met" : "aim NOT met"} (every call p95 ≤ ${AIM_MS} ms${withPage ? ", the click p50 ≤ 300 ms in the page" : ""})${slow.length ? `; over: ${slow.map((s) => s.name).join(", ")}` : ""}`,
);

type PageTimes = { click: number[]; load: number[]; clickInPage: number[]; loadInPage: number[] };
type Watch = { clickAt: number | null; shownAt: number | null; pending: boolean };

/**
 * Installed in every document of the page: the time of the last click event, and of the first frame after the
 * 100th explorer row is in the document (`requestAnimationFrame`, then a task: the frame has been painted), both
 * on the page's clock (ms since its navigation started).
 */
function watchRows() {
  const w = window as unknown as { __rows: Watch };
  w.__rows = { clickAt: null, shownAt: null, pending: false };
  document.addEventListener("click", () => (w.__rows = { clickAt: performance.now(), shownAt: null, pending: false }), true);
  new MutationObserver(() => {
    const r = w.__rows;
    if (r.shownAt !== null || r.pending || document.querySelectorAll('[data-testid="explorer-row"]').length < 100) return;
    r.pending = true;
    requestAnimationFrame(() => setTimeout(() => (r.shownAt = performance.now())));
  }).observe(document, { childList: true, subtree: true });
}

/**
 * Signs a dashboard user of the bench team in with Chromium; times the click on Events and a cold filtered load
 * (5 each, ms): as the driver sees them (from the call that clicks or navigates to the 100th row found), and in
 * the page (from the click event, or the navigation's start, to the frame showing 100 rows).
 */
async function timePage(): Promise<PageTimes> {
  const { chromium } = await import("@playwright/test");
  const { createUser } = await import("@/lib/dashboard/users");
  const email = `bench-${Date.now()}@example.test`;
  await createUser(email, "correct horse battery", teamId);
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium", args: ["--no-sandbox", "--disable-gpu"] });
  const page = await browser.newPage({ baseURL: server.url, viewport: { width: 1440, height: 900 } });
  await page.addInitScript(watchRows);
  await page.goto("/dashboard/sign-in");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill("correct horse battery");
  await page.getByTestId("sign-in-submit").click();
  await page.waitForURL(/\/dashboard$/);
  const times: PageTimes = { click: [], load: [], clickInPage: [], loadInPage: [] };
  /** The page's watch once the frame with 100 rows was shown. */
  const shown = async () => {
    await page.waitForFunction(() => (window as unknown as { __rows: Watch }).__rows.shownAt !== null);
    return page.evaluate(() => (window as unknown as { __rows: Watch }).__rows);
  };
  for (let i = 0; i < 6; i++) {
    // From a page whose own calls are done (the Overview's metrics would still be loading: without the worker
    // there are no rollups), as someone who looked at the connections and now opens Events.
    await page.goto("/dashboard/connections");
    await page.getByRole("heading", { name: "Connections" }).waitFor();
    await page.waitForLoadState("networkidle");
    const t = performance.now();
    await page.getByRole("link", { name: "Events", exact: true }).click();
    await page.getByTestId("explorer-row").nth(99).waitFor();
    const clicked = performance.now() - t;
    const w = await shown();
    if (i > 0) {
      times.click.push(clicked);
      times.clickInPage.push(w.shownAt! - w.clickAt!);
    }
    const t2 = performance.now();
    await page.goto("/dashboard/events?status=FAILED");
    await page.getByTestId("explorer-row").nth(99).waitFor();
    const loaded = performance.now() - t2;
    const w2 = await shown();
    if (i > 0) {
      times.load.push(loaded);
      times.loadInPage.push(w2.shownAt!);
    }
  }
  if (process.env.BENCH_TRACE) await traceClick(browser, page, process.env.BENCH_TRACE);
  await browser.close();
  const { closePool } = await import("@/lib/db/pool");
  await closePool();
  return times;
}

/**
 * One more click on Events, traced by Chromium into `file` (open it in chrome://tracing or Perfetto), and the
 * renderer main thread's busy time between the click and the frame with 100 rows, by kind of work (ms).
 */
async function traceClick(browser: import("@playwright/test").Browser, page: import("@playwright/test").Page, file: string) {
  const fs = await import("node:fs");
  await page.goto("/dashboard/connections");
  await page.getByRole("heading", { name: "Connections" }).waitFor();
  await page.waitForLoadState("networkidle");
  await browser.startTracing(page, {
    path: file,
    categories: (process.env.BENCH_TRACE_CATEGORIES ?? "devtools.timeline,blink.user_timing,v8.execute,disabled-by-default-devtools.timeline").split(","),
  });
  await page.getByRole("link", { name: "Events", exact: true }).click();
  await page.getByTestId("explorer-row").nth(99).waitFor();
  const w = await page
    .waitForFunction(() => (window as unknown as { __rows: Watch }).__rows.shownAt !== null)
    .then(() => page.evaluate(() => (window as unknown as { __rows: Watch }).__rows));
  await browser.stopTracing();
  type TraceEvent = { name: string; ph: string; ts: number; dur?: number; pid: number; tid: number; args?: { name?: string } };
  const { traceEvents: events } = JSON.parse(fs.readFileSync(file, "utf8")) as { traceEvents: TraceEvent[] };
  const main = events.find(
    (e) => e.name === "thread_name" && e.args?.name === "CrRendererMain" && events.some((x) => x.pid === e.pid && x.name === "EventDispatch"),
  );
  if (!main) return log("trace: no renderer main thread found");
  const onMain = events.filter((e) => e.pid === main.pid && e.tid === main.tid && e.ph === "X" && e.dur !== undefined);
  const click = onMain.find((e) => e.name === "EventDispatch" && (e as { args?: { data?: { type?: string } } }).args?.data?.type === "click");
  if (!click) return log("trace: no click event found");
  const end = click.ts + (w.shownAt! - w.clickAt!) * 1000;
  const inWindow = onMain.filter((e) => e.ts >= click.ts && e.ts < end);
  const kinds: Record<string, string[]> = {
    script: ["FunctionCall", "EvaluateScript", "v8.compile", "TimerFire", "FireAnimationFrame", "RunMicrotasks", "EventDispatch"],
    style: ["UpdateLayoutTree"],
    layout: ["Layout"],
    paint: ["PrePaint", "Paint", "Layerize", "UpdateLayer", "Commit", "PaintImage"],
    parse: ["ParseHTML", "ParseAuthorStyleSheet"],
  };
  const top = inWindow.filter((e) => e.name === "RunTask" || e.name === "ThreadControllerImpl::RunTask");
  const busy = top.reduce((a, e) => a + e.dur!, 0) / 1000;
  // Only the outermost event of each kind counts (a forced Layout inside a FunctionCall counts as both kinds).
  const sums = Object.entries(kinds).map(([kind, names]) => {
    let total = 0;
    let until = 0;
    for (const e of inWindow.filter((x) => names.includes(x.name)).sort((a, b) => a.ts - b.ts)) {
      if (e.ts < until) continue;
      total += e.dur!;
      until = e.ts + e.dur!;
    }
    return `${kind} ${(total / 1000).toFixed(0)}`;
  });
  log(`trace ${file}: click → 100 rows ${(w.shownAt! - w.clickAt!).toFixed(0)} ms; main thread busy ${busy.toFixed(0)} ms: ${sums.join(", ")} (ms)`);
}

if (process.env.BENCH_HOLD === "1") {
  log(`holding: server ${server.url}, database ${dbUrl} (Ctrl-C ends)`);
  await new Promise<void>((resolve) => process.once("SIGINT", () => resolve()));
}
await client.end();
await server.stop();
await db?.pg.stop();
process.exit(ok ? 0 : 1);
