/**
 * A real local HTTP receiver for delivery tests: records every request (method, url, headers, raw
 * body, arrival time) and answers with what `respond` says, which a test may change mid-test.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";

/** A request as it arrived (`at`, ms), and `endedAt` once its answer went out or its sender closed it. */
export type Received = { method: string; url: string; headers: http.IncomingHttpHeaders; body: Buffer; at: number; endedAt?: number };
export type Answer = { status: number; body?: string; delayMs?: number; headers?: Record<string, string> };

export type Receiver = {
  url: string;
  received: Received[];
  /** Sets the answer for the following requests. */
  respond: (answer: Answer | ((req: Received, index: number) => Answer)) => void;
  /** Resolves once `count` requests arrived (rejects after `timeoutMs`). */
  waitFor: (count: number, timeoutMs?: number) => Promise<Received[]>;
  close: () => Promise<void>;
};

export async function startReceiver(): Promise<Receiver> {
  const received: Received[] = [];
  let answer: Answer | ((req: Received, index: number) => Answer) = { status: 200, body: "ok" };
  const waiters: { count: number; resolve: () => void }[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const entry: Received = { method: req.method ?? "", url: req.url ?? "", headers: req.headers, body: Buffer.concat(chunks), at: Date.now() };
      received.push(entry);
      res.on("close", () => (entry.endedAt = Date.now()));
      const a = typeof answer === "function" ? answer(entry, received.length - 1) : answer;
      for (const w of waiters.filter((w) => received.length >= w.count)) w.resolve();
      const send = () => {
        if (res.destroyed) return;
        res.writeHead(a.status, { "content-type": "text/plain", ...a.headers });
        res.end(a.body ?? "");
      };
      if (a.delayMs) setTimeout(send, a.delayMs);
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    respond: (a) => (answer = a),
    waitFor: (count, timeoutMs = 15_000) =>
      new Promise((resolve, reject) => {
        if (received.length >= count) return resolve(received);
        const timer = setTimeout(() => reject(new Error(`receiver got ${received.length} of ${count} requests in ${timeoutMs} ms`)), timeoutMs);
        waiters.push({ count, resolve: () => (clearTimeout(timer), resolve(received)) });
      }),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Polls `fn` (sync or async) until it returns a truthy value (or throws after `timeoutMs`). */
export async function eventually<T>(
  fn: () => T | null | undefined | false | Promise<T | null | undefined | false>,
  timeoutMs = 15_000,
  everyMs = 100,
): Promise<T> {
  const end = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < end) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (err) {
      last = err;
    }
    await new Promise((r) => setTimeout(r, everyMs));
  }
  const lastText = String(last);
  throw new Error(`condition not met within ${timeoutMs} ms${last ? `: ${lastText}` : ""}`);
}
