/**
 * Prometheus metrics and the probes of each process (docs/operations.md "Metrics and health";
 * lib/observability/). A server of its own (its counters move only with this file's requests) with
 * METRICS_PORT: the web process serves /metrics, /livez, /readyz there and the worker child of `npm start`
 * on METRICS_PORT + 1; without METRICS_TOKEN, /metrics on the main port is 404. Then a web process whose
 * database cannot be reached: /livez still 200, /readyz and /healthz 503 without error text.
 */
import { type ChildProcess, spawn } from "node:child_process";
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, type Receiver, startReceiver } from "./support/receiver";
import { freePort, OPERATOR_HEADERS, privateDatabase, type RunningServer, startServer } from "./support/servers";

type Sample = { name: string; labels: Record<string, string>; value: number };

/**
 * Parses the Prometheus text format strictly: every line is a HELP, a TYPE or a sample, and every
 * sample belongs to a family with both (histograms' _bucket, _sum and _count to theirs). Throws otherwise.
 */
function parseMetrics(text: string): { samples: Sample[]; types: Map<string, string> } {
  const help = new Set<string>();
  const types = new Map<string, string>();
  const samples: Sample[] = [];
  for (const line of text.split("\n")) {
    if (!line) continue;
    const meta = /^# (HELP|TYPE) ([a-zA-Z_:][a-zA-Z0-9_:]*) (.+)$/.exec(line);
    if (meta) {
      if (meta[1] === "HELP") help.add(meta[2]);
      else types.set(meta[2], meta[3]);
      continue;
    }
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) throw new Error(`not a metrics line: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? "").matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)",?/g)) labels[l[1]] = l[2];
    const value = Number(m[3]);
    if (Number.isNaN(value)) throw new Error(`not a number: ${line}`);
    const family = types.has(m[1]) ? m[1] : m[1].replace(/_(bucket|sum|count)$/, "");
    if (!help.has(family) || !types.has(family)) throw new Error(`sample without HELP and TYPE: ${line}`);
    samples.push({ name: m[1], labels, value });
  }
  return { samples, types };
}

/** The value of the sample `name` whose labels include `labels` (0 when there is none). */
function valueOf(samples: Sample[], name: string, labels: Record<string, string> = {}): number {
  const s = samples.find((x) => x.name === name && Object.entries(labels).every(([k, v]) => x.labels[k] === v));
  return s?.value ?? 0;
}

async function scrape(url: string): Promise<ReturnType<typeof parseMetrics>> {
  const res = await fetch(`${url}/metrics`);
  expect(res.status).toBe(200);
  return parseMetrics(await res.text());
}

/** True when 127.0.0.1:`port` can be bound now. */
const bindable = (port: number) =>
  new Promise<boolean>((resolve) => {
    const probe = net.createServer();
    probe.once("error", () => resolve(false));
    probe.listen(port, "127.0.0.1", () => probe.close(() => resolve(true)));
  });

/**
 * A port whose successor is free too (METRICS_PORT and the worker's METRICS_PORT + 1), below Linux's
 * ephemeral range (32768–60999), so that no outgoing connection of a test running meanwhile takes it.
 */
async function freePortPair(): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    if ((await bindable(port)) && (await bindable(port + 1))) return port;
  }
}

describe("metrics of a server of its own (METRICS_PORT, no METRICS_TOKEN)", () => {
  const apiKey = "metrics-test-api-key-0123456789";
  let db: Awaited<ReturnType<typeof privateDatabase>>;
  let server: RunningServer;
  let receiver: Receiver;
  let web: string;
  let worker: string;

  beforeAll(async () => {
    db = await privateDatabase("metrics");
    receiver = await startReceiver();
    let metricsPort = 0;
    // A port free a moment ago can be taken by another test before the server binds it: try another pair.
    for (let attempt = 1; !server; attempt++) {
      metricsPort = await freePortPair();
      server = await startServer({
        DATABASE_URL: db.url,
        METRICS_PORT: String(metricsPort),
        METRICS_TOKEN: "",
        GATEWAY_API_KEY: apiKey,
        LOG_LEVEL: "warn",
      }).catch((err: unknown) => {
        if (attempt === 3 || !/metrics listener cannot use port/.test(String(err))) throw err;
        return undefined as unknown as RunningServer;
      });
    }
    web = `http://127.0.0.1:${metricsPort}`;
    worker = `http://127.0.0.1:${metricsPort + 1}`;
  });
  afterAll(async () => {
    await server?.stop();
    await receiver?.close();
    await db?.drop();
  });

  it("counts ingested requests, HTTP answers by surface and the worker's deliveries by the right amounts", async () => {
    const webBefore = await scrape(web);
    const workerBefore = await scrape(worker);
    const created = await fetch(`${server.url}/api/2025-07-01/connections`, {
      method: "POST",
      headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "metrics", source: { name: "metrics-src" }, destination: { name: "metrics-dst", config: { url: `${receiver.url}/hook` } } }),
    });
    expect(created.status).toBe(200);
    const sourceUrl = ((await created.json()) as { source: { url: string } }).source.url;
    for (let i = 0; i < 3; i++) {
      const res = await fetch(sourceUrl, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ i }) });
      expect(res.status).toBe(200);
    }
    expect((await fetch(`${server.url}/e/nosuchsource`, { method: "POST", body: "{}" })).status).toBe(404);
    await receiver.waitFor(3, 20_000);

    const { samples } = await scrape(web);
    const moved = (name: string, labels: Record<string, string>) => valueOf(samples, name, labels) - valueOf(webBefore.samples, name, labels);
    expect(moved("hookyard_ingested_requests_total", { outcome: "accepted" })).toBe(3);
    expect(moved("hookyard_ingested_requests_total", { outcome: "not_found" })).toBe(1);
    expect(moved("hookyard_ingested_requests_total", { outcome: "rejected" })).toBe(0);
    expect(moved("hookyard_http_requests_total", { surface: "ingest", method: "POST", status: "200" })).toBe(3);
    expect(moved("hookyard_http_requests_total", { surface: "ingest", method: "POST", status: "404" })).toBe(1);
    expect(moved("hookyard_http_requests_total", { surface: "gateway_api", method: "POST", status: "200" })).toBe(1);
    expect(moved("hookyard_http_request_duration_seconds_count", { surface: "ingest" })).toBe(4);
    expect(moved("hookyard_http_request_duration_seconds_bucket", { surface: "ingest", le: "+Inf" })).toBe(4);
    expect(valueOf(samples, "hookyard_db_pool_connections", { pool: "main", state: "total" })).toBeGreaterThan(0);
    // The queues, read on this scrape: every state of both products, the oldest due work's age.
    for (const [product, state] of [
      ["gateway", "fanout"],
      ["gateway", "due"],
      ["gateway", "scheduled"],
      ["gateway", "in_flight"],
      ["gateway", "held"],
      ["outbound", "due"],
      ["outbound", "scheduled"],
      ["outbound", "in_flight"],
    ]) {
      expect(
        samples.some((s) => s.name === "hookyard_queue_depth" && s.labels.product === product && s.labels.state === state && s.value >= 0),
        `${product} ${state}`,
      ).toBe(true);
    }
    expect(
      samples
        .filter((s) => s.name === "hookyard_oldest_pending_seconds")
        .map((s) => s.labels.product)
        .sort(),
    ).toEqual(["gateway", "outbound"]);

    // Deliveries are the worker's (recorded as the attempts are): the worker's own listener.
    const workerAfter = await eventually(async () => {
      const w = await scrape(worker);
      return valueOf(w.samples, "hookyard_deliveries_total", { product: "gateway", outcome: "success" }) -
        valueOf(workerBefore.samples, "hookyard_deliveries_total", { product: "gateway", outcome: "success" }) >=
        3
        ? w
        : undefined;
    }, 10_000);
    const workerMoved = (name: string, labels: Record<string, string>) =>
      valueOf(workerAfter.samples, name, labels) - valueOf(workerBefore.samples, name, labels);
    expect(workerMoved("hookyard_deliveries_total", { product: "gateway", outcome: "success" })).toBe(3);
    expect(workerMoved("hookyard_deliveries_total", { product: "gateway", outcome: "failed" })).toBe(0);
    expect(workerMoved("hookyard_delivery_duration_seconds_count", { product: "gateway" })).toBe(3);
    // The worker counts no HTTP answers (it serves none) but has its process metrics.
    expect(valueOf(workerAfter.samples, "hookyard_http_requests_total", { surface: "ingest" })).toBe(0);
    expect(workerAfter.types.get("hookyard_nodejs_eventloop_lag_seconds")).toBe("gauge");
    expect(workerAfter.types.get("hookyard_delivery_duration_seconds")).toBe("histogram");
  });

  it("serves /livez and /readyz on the listeners of the web process and the worker; 404 and 405 for the rest", async () => {
    for (const base of [web, worker]) {
      const live = await fetch(`${base}/livez`);
      expect([live.status, await live.text()], base).toEqual([200, '{"status":"ok"}']);
      const ready = await eventually(async () => {
        const r = await fetch(`${base}/readyz`);
        return r.status === 200 ? r : undefined;
      }, 10_000);
      expect(await ready.text()).toBe('{"status":"ready"}');
      expect((await fetch(`${base}/healthz`)).status).toBe(404);
      expect((await fetch(`${base}/metrics`, { method: "POST" })).status).toBe(405);
    }
  });

  it("answers GET /metrics on the main port 404 when no METRICS_TOKEN is configured, even with a bearer token", async () => {
    expect((await fetch(`${server.url}/metrics`)).status).toBe(404);
    const res = await fetch(`${server.url}/metrics`, { headers: OPERATOR_HEADERS });
    expect(res.status).toBe(404);
    expect(await res.text()).not.toContain("hookyard_");
  });
});

describe("a web process whose database cannot be reached", () => {
  let child: ChildProcess;
  let base: string;
  let output = "";

  let proxy: net.Server;
  const piped = new Set<net.Socket>();

  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    // The test database behind a TCP relay that the test closes once the web process is up: the database
    // becomes unreachable under a running process (a process refuses to start without it: its schema check).
    const target = new URL(process.env.DATABASE_URL!);
    proxy = net.createServer((socket) => {
      const upstream = net.connect(Number(target.port), target.hostname);
      for (const s of [socket, upstream]) {
        piped.add(s);
        s.on("error", () => s.destroy());
        s.on("close", () => piped.delete(s));
      }
      socket.pipe(upstream).pipe(socket);
    });
    await new Promise<void>((r) => proxy.listen(0, "127.0.0.1", r));
    const relayed = new URL(target);
    relayed.port = String((proxy.address() as net.AddressInfo).port);
    // The web process alone (scripts/web.ts, as `npm start` runs it, without the supervisor and its migrations).
    child = spawn(process.execPath, ["--import", "tsx", "scripts/web.ts"], {
      env: {
        ...process.env,
        NODE_ENV: "production",
        PORT: String(port),
        HOST: "127.0.0.1",
        PUBLIC_URL: base,
        DATABASE_URL: relayed.toString(),
        DB_CONNECT_TIMEOUT_MS: "500",
        METRICS_TOKEN: OPERATOR_HEADERS.authorization.slice("Bearer ".length),
        LOG_LEVEL: "silent",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    child.stdout!.on("data", (d) => (output += d));
    child.stderr!.on("data", (d) => (output += d));
    await eventually(
      async () => {
        if (child.exitCode !== null) throw new Error(`the web process exited (${child.exitCode}): ${output}`);
        return (await fetch(`${base}/readyz`).catch(() => null))?.status === 200 ? true : undefined;
      },
      60_000,
      200,
    );
    // The database goes away: no new connections, and the open ones are cut.
    await new Promise<void>((r) => {
      proxy.close(() => r());
      for (const s of piped) s.destroy();
    });
    await eventually(async () => ((await fetch(`${base}/readyz`)).status === 503 ? true : undefined), 10_000, 100);
  });
  afterAll(async () => {
    if (child && child.exitCode === null) {
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGTERM");
      await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
      if (child.exitCode === null) child.kill("SIGKILL");
    }
  });

  it("is live (/livez 200) but not ready: /readyz and the public /healthz answer 503 with no error text", async () => {
    expect((await fetch(`${base}/livez`)).status).toBe(200);
    const ready = await fetch(`${base}/readyz`);
    expect([ready.status, await ready.text()]).toEqual([503, '{"status":"unavailable"}']);
    const health = await fetch(`${base}/healthz`);
    expect([health.status, await health.text()]).toEqual([503, '{"status":"unavailable"}']);
  });

  it("tells operators why: the database down, with its error", async () => {
    const res = await fetch(`${base}/healthz`, { headers: OPERATOR_HEADERS });
    expect(res.status).toBe(503);
    const body = (await res.json()) as { status: string; parts: { database: { state: string; error: string | null }; web: { pid: number } } };
    expect(body.status).toBe("degraded");
    expect(body.parts.database.state).toBe("down");
    expect(body.parts.database.error).toMatch(/ECONNREFUSED|connect/);
    expect(body.parts.web.pid).toBe(child.pid);
  });
});
