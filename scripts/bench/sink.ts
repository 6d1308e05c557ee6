/**
 * The benchmarks' destination (npm run bench:pipeline, bench:outbound): answers 200 at once and records when each event
 * arrived. Its own process, so the load generator's event loop is not shared with it. Talks to its
 * parent over IPC: sends `{port}` when listening; answers "stats" with `{arrivals: [event id, request id,
 * [arrival ms…]][]}`.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";

const arrivals = new Map<string, { requestId: string; at: number[] }>();
const server = http.createServer((req, res) => {
  req.resume();
  req.on("end", () => {
    // The gateway's event id, or the outbound service's (npm run bench:outbound).
    const eventId = String(req.headers["x-gateway-event-id"] ?? req.headers["x-outbound-event-id"]);
    const entry = arrivals.get(eventId) ?? { requestId: String(req.headers["x-gateway-request-id"]), at: [] };
    entry.at.push(Date.now());
    arrivals.set(eventId, entry);
    res.writeHead(200, { "content-type": "text/plain" });
    res.end("ok");
  });
});
server.keepAliveTimeout = 65_000;
server.listen(0, "127.0.0.1", () => process.send!({ port: (server.address() as AddressInfo).port }));
process.on("message", (m) => {
  if (m === "stats") process.send!({ arrivals: [...arrivals].map(([id, e]) => [id, e.requestId, e.at]) });
  if (m === "count") process.send!({ count: arrivals.size });
});
process.on("disconnect", () => process.exit(0));
