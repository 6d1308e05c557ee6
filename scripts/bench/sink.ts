/**
 * The benchmarks' destination (npm run bench:pipeline, bench:outbound): answers 200 at once and records when each event
 * arrived. Its own process, so the load generator's event loop is not shared with it. Talks to its
 * parent over IPC: sends `{port}` when listening; answers "stats" with `{arrivals: [event id, request id,
 * [arrival ms…]][]}`.
 * Open-loop steps (scripts/bench/steps.ts) deliver to `/open/<lane>` (lane: `relay` or `hookyard`) bodies
 * holding `"bench_id":"<tag>:<seq>"`: those are recorded apart, by `<lane>/<tag>` and seq, and `{open: key}`
 * is answered with `{openKey: key, seqs: [seq, [arrival ms…]][]}`, `{openCount: key}` with
 * `{openCountKey: key, n}` (distinct seqs arrived), `{take: key}` like `{open: key}` but forgets the key's arrivals after
 * answering (`{takeKey: key, seqs, failed}`, `failed` the deliveries answered 503 since the last take), so long
 * runs (npm run soak) keep the sink's memory flat (only the seqs failed on purpose are kept).
 * `/open/<lane>?fail=<n>`: the first delivery of every seq divisible by n is answered 503 (and not recorded
 * as an arrival), the next one 200: 1/n of the deliveries fail once and must be retried.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";

const arrivals = new Map<string, { requestId: string; at: number[] }>();
const open = new Map<string, Map<number, number[]>>();
/** `<lane>/<tag>` → seqs whose first delivery was failed on purpose (`?fail=<n>`); kept after a take, so a seq fails once only. */
const failedOnce = new Map<string, Set<number>>();
/** `<lane>/<tag>` → deliveries failed on purpose since the last take. */
const failedSinceTake = new Map<string, number>();
const benchId = /"bench_id":"([^"]+):(\d+)"/;
/** Records an open-loop delivery; returns the status to answer (503 for a delivery failed on purpose). */
function recordOpen(lane: string, body: string, failEvery: number): number {
  const at = Date.now();
  const m = benchId.exec(body);
  if (!m) return 200;
  const key = `${lane}/${m[1]}`;
  const seq = Number(m[2]);
  if (failEvery > 0 && seq % failEvery === 0) {
    const failed = failedOnce.get(key) ?? failedOnce.set(key, new Set()).get(key)!;
    if (!failed.has(seq)) {
      failed.add(seq);
      failedSinceTake.set(key, (failedSinceTake.get(key) ?? 0) + 1);
      return 503;
    }
  }
  const seqs = open.get(key) ?? open.set(key, new Map()).get(key)!;
  seqs.set(seq, [...(seqs.get(seq) ?? []), at]);
  return 200;
}
const server = http.createServer((req, res) => {
  const lane = req.url?.startsWith("/open/") ? req.url.slice(6).split(/[/?]/)[0] : null;
  const chunks: Buffer[] = [];
  if (lane) req.on("data", (c: Buffer) => chunks.push(c));
  else req.resume();
  req.on("end", () => {
    let status = 200;
    if (lane) status = recordOpen(lane, Buffer.concat(chunks).toString("utf8"), Number(/[?&]fail=(\d+)/.exec(req.url ?? "")?.[1] ?? 0));
    else {
      // The gateway's event id, or the outbound service's (npm run bench:outbound).
      const eventId = String(req.headers["x-gateway-event-id"] ?? req.headers["x-outbound-event-id"]);
      const entry = arrivals.get(eventId) ?? { requestId: String(req.headers["x-gateway-request-id"]), at: [] };
      entry.at.push(Date.now());
      arrivals.set(eventId, entry);
    }
    res.writeHead(status, { "content-type": "text/plain" });
    res.end(status === 200 ? "ok" : "failed on purpose");
  });
});
server.keepAliveTimeout = 65_000;
server.listen(0, "127.0.0.1", () => process.send!({ port: (server.address() as AddressInfo).port }));
process.on("message", (m) => {
  if (m === "stats") process.send!({ arrivals: [...arrivals].map(([id, e]) => [id, e.requestId, e.at]) });
  if (m === "count") process.send!({ count: arrivals.size });
  if (m && typeof m === "object" && "open" in m) process.send!({ openKey: m.open, seqs: [...(open.get(String(m.open)) ?? [])] });
  if (m && typeof m === "object" && "take" in m) {
    const key = String(m.take);
    process.send!({ takeKey: key, seqs: [...(open.get(key) ?? [])], failed: failedSinceTake.get(key) ?? 0 });
    open.delete(key);
    failedSinceTake.delete(key);
  }
  if (m && typeof m === "object" && "openCount" in m) process.send!({ openCountKey: m.openCount, n: open.get(String(m.openCount))?.size ?? 0 });
});
process.on("disconnect", () => process.exit(0));
