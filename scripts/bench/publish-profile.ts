/**
 * In-process profile of outbound publish (no HTTP): `outboundHttp` called BENCH_REQUESTS times,
 * BENCH_CONNECTIONS at a time, for a tenant without destinations and one with a webhook destination.
 * Prints publishes/s and µs of this process's CPU per publish. Run with `node --cpu-prof` for a profile:
 *   npx tsx --cpu-prof --cpu-prof-dir=/tmp/prof scripts/bench/publish-profile.ts
 */

export {};

const requests = Number(process.env.BENCH_REQUESTS ?? 20_000);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 50);
const apiKey = `hko_profile_${Date.now()}_key`;
Object.assign(process.env, { OUTBOUND_API_KEY: apiKey, LOG_LEVEL: "warn", PUBLIC_URL: "http://127.0.0.1:1" });
const { startTestDatabase } = await import("../../e2e/support/servers");
const db = await startTestDatabase();
process.env.DATABASE_URL = db.url;
const { outboundHttp } = await import("@/lib/outbound/http");
const { OUTBOUND_ROUTES } = await import("@/lib/outbound/routes");
const { ensureOutboundKey } = await import("@/lib/outbound/auth");
const { closePool } = await import("@/lib/db/pool");
await ensureOutboundKey(() => {});
const headers = { authorization: `Bearer ${apiKey}`, "content-type": "application/json" };
const call = (method: string, path: string, body?: unknown) =>
  outboundHttp(
    OUTBOUND_ROUTES,
    {
      method,
      pathname: `/outbound/api/v1/${path}`,
      query: "",
      headers,
      body: Buffer.from(body === undefined ? "" : JSON.stringify(body)),
      bodySize: 0,
      bodyTooLarge: false,
      clientIp: "127.0.0.1",
      secure: false,
    },
    "http://127.0.0.1:1",
  );
await call("PUT", "tenants/none", {});
await call("PUT", "tenants/one", {});
const d = await call("POST", "tenants/one/destinations", { type: "webhook", topics: "*", config: { url: "http://127.0.0.1:9/x" } });
if (d.status !== 201 && d.status !== 200) throw new Error(`destination: ${d.status} ${String(d.body)}`);
const data = { id: "in_1", amount: 4200, customer: "cus_1", pad: "x".repeat(900) };
for (const tenant of ["none", "one", "none", "one"]) {
  const body = Buffer.from(JSON.stringify({ tenant_id: tenant, topic: "invoice.paid", metadata: { source: "bench" }, data }));
  const req = {
    method: "POST",
    pathname: "/outbound/api/v1/publish",
    query: "",
    headers,
    body,
    bodySize: body.length,
    bodyTooLarge: false,
    clientIp: "127.0.0.1",
    secure: false,
  };
  let next = 0;
  let failed = 0;
  const cpu = process.cpuUsage();
  const started = performance.now();
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (next++ < requests) if ((await outboundHttp(OUTBOUND_ROUTES, req, "http://127.0.0.1:1")).status !== 202) failed++;
    }),
  );
  const s = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  console.log(`tenant ${tenant}: ${Math.round(requests / s)} publishes/s, ${((used.user + used.system) / requests).toFixed(1)} µs CPU each, ${failed} failed`);
}
await closePool();
await db.pg.stop();
