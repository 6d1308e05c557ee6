/**
 * Support of the ordered-delivery tests (e2e/gateway-ordered.test.ts, e2e/outbound-ordered.test.ts): a
 * receiver of `{k, s}` bodies that checks order and one-at-a-time per key as deliveries arrive, and a
 * way to SIGKILL a running server's worker.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { expect } from "vitest";
import { eventually } from "./receiver";
import { OPERATOR_HEADERS, type RunningServer } from "./servers";

/** The run's size: ORDERED_EVENTS over ORDERED_KEYS (`npm run chaos:ordered…` sets 10,000 over 100), and how long it may take to settle, ms. */
export const EVENTS = Number(process.env.ORDERED_EVENTS ?? 300);
export const KEYS = Number(process.env.ORDERED_KEYS ?? 20);
export const SETTLE_MS = Number(process.env.ORDERED_SETTLE_MS ?? Math.max(90_000, EVENTS * 60));

/**
 * Waits until `seen` got `perKey` events of each of `key-0` … `key-{keys-1}` answered 2xx (SETTLE_MS at
 * most; the error lists what each key got), then expects no breach of order and no overlap.
 */
export async function expectAllInOrder(seen: Seen, keys: number, perKey: number): Promise<void> {
  await eventually(() => [...Array(keys).keys()].every((i) => (seen.succeeded.get(`key-${i}`)?.size ?? 0) === perKey), SETTLE_MS, 500).catch((err) => {
    const missing = [...Array(keys).keys()].map((i) => `key-${i}: ${seen.succeeded.get(`key-${i}`)?.size ?? 0}`).join(", ");
    throw new Error(`${err}; delivered per key: ${missing}`);
  });
  expect(seen.outOfOrder.slice(0, 5)).toEqual([]);
  const { real, abandoned } = overlaps(seen);
  if (abandoned) console.log(`[ordered] ${abandoned} arrival(s) beside a request its sender had already given up on (not overlaps)`);
  expect(real.slice(0, 5)).toEqual([]);
}

/**
 * What the receiver saw: per key, the sequence numbers it got; every breach of order; every request that
 * arrived while another of its key was still unanswered (`suspects`, with the indexes in `requests` of those
 * others); and the event id of every request, in arrival order.
 */
export type Seen = {
  received: number;
  outOfOrder: string[];
  suspects: { at: string; index: number; beside: number[] }[];
  requests: { eventId: string | undefined }[];
  succeeded: Map<string, Set<number>>;
};

/**
 * The suspects that are real overlaps: a request arrived while another of its key was unanswered, and the
 * sender had not given up on that other one. A sender gives up on a request at its timeout (here 1 s) or
 * when its worker dies, and then sends the same event again (a retry, or the lease's takeover) before
 * anything later of its key. So an unanswered request whose event arrived again, after it and no later than
 * the suspect, had been abandoned: the receiver, starved of CPU on a busy machine, had not answered it yet.
 * That is a late answer, not two deliveries of a key in flight at the sender.
 */
function overlaps(seen: Seen): { real: string[]; abandoned: number } {
  const arrivals = new Map<string, number[]>();
  seen.requests.forEach((r, i) => r.eventId && arrivals.set(r.eventId, [...(arrivals.get(r.eventId) ?? []), i]));
  const abandonedBy = (i: number, suspect: number) => {
    const id = seen.requests[i].eventId;
    return !!id && arrivals.get(id)!.some((j) => j > i && j <= suspect);
  };
  const real = seen.suspects.filter((o) => o.beside.some((i) => !abandonedBy(i, o.index))).map((o) => o.at);
  return { real, abandoned: seen.suspects.length - real.length };
}

/**
 * A receiver of `{k, s}` bodies that answers 500 to `failRate` of the deliveries (after 0-5 ms) and checks,
 * as each delivery arrives, that every earlier event of its key was answered 2xx already and that no
 * other delivery of its key is in flight. `fail(k, s)` forces failures.
 */
export async function orderedReceiver(failRate: number, fail: (k: string, s: number) => boolean = () => false) {
  const seen: Seen = { received: 0, outOfOrder: [], suspects: [], requests: [], succeeded: new Map() };
  // Per key, the indexes (in seen.requests) of its requests not answered yet.
  const inFlight = new Map<string, Set<number>>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const { k, s } = JSON.parse(Buffer.concat(chunks).toString()) as { k: string; s: number };
      seen.received++;
      // The gateway's x-gateway-event-id, or outbound's event-id header under its prefix.
      const eventId = Object.entries(req.headers).find(([h]) => h.endsWith("event-id"))?.[1] as string | undefined;
      const index = seen.requests.push({ eventId }) - 1;
      const done = seen.succeeded.get(k) ?? new Set<number>();
      seen.succeeded.set(k, done);
      for (let earlier = 0; earlier < s; earlier++) if (!done.has(earlier)) seen.outOfOrder.push(`${k}#${s} before ${k}#${earlier} succeeded`);
      const open = inFlight.get(k) ?? new Set<number>();
      inFlight.set(k, open);
      if (open.size) seen.suspects.push({ at: `${k}#${s}`, index, beside: [...open] });
      open.add(index);
      const ok = !fail(k, s) && Math.random() >= failRate;
      setTimeout(
        () => {
          open.delete(index);
          if (ok) done.add(s);
          res.writeHead(ok ? 200 : 500).end(ok ? "ok" : "no");
        },
        Math.floor(Math.random() * 5),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))),
  };
}

/** SIGKILLs the worker part of the running server (its supervisor restarts it). */
export async function killWorkerOf(server: RunningServer): Promise<void> {
  const h = (await (await fetch(`${server.url}/healthz`, { headers: OPERATOR_HEADERS })).json()) as { parts: Record<string, { pid: number | null }> };
  const pid = h.parts.worker?.pid;
  if (!pid) throw new Error(`no worker pid in /healthz: ${JSON.stringify(h)}`);
  process.kill(pid, "SIGKILL");
}
