/**
 * `npm run bench:pipeline -- ordered` (or BENCH_MODE=ordered): ordered delivery per key against unordered
 * delivery, in the same sitting (docs/benchmarks.md "Ordered delivery", docs/pipeline.md "Ordered delivery").
 * Three rounds, unordered / ordered / unordered, each on its own source and destination delivering to the
 * sink: BENCH_ORDERED_RATE (600) requests/s for BENCH_ORDERED_SECONDS (10) s, open loop, the customer
 * (`body.data.customer`, the ordering key) cycling over BENCH_ORDERED_KEYS (100) values. Each round reports
 * its delivery rate (deliveries over first-to-last arrival, and the time to deliver everything after the
 * first send) and the CPU the server and PostgreSQL spent per delivery (CPU-relative, so that a machine busy
 * with other work moves both sides alike); the ordered round also counts key-order breaches at the sink.
 * The aim: ordered ≥ half the unordered rate (the two unordered rounds averaged).
 * `-- ordered-outbound` runs the same rounds on the outbound service (docs/outbound.md "Ordered delivery"):
 * publishes (`data.customer` the ordering key) to a webhook destination of one tenant per round.
 */
import { gatewayConnection, jsonOfSize, loadAverage, log, machineLine, testPostmaster, usageByPart } from "./common";
import type { ModeContext } from "./fanout-size";
import { openLoop } from "./open-loop";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type Round = { name: string; accepted: number; delivered: number; rate: number; drainRate: number; cpuPerDelivery: number; breaches: number };

/** Where a round sends: the URL, the headers and the body of request `seq`. */
type Target = { url: string; headers?: Record<string, string>; body: (seq: number) => string };

/**
 * A round's target on the outbound service: tenant `name` with one webhook destination to `url`, ordered by
 * `data.customer` when `ordering` is set; publishes carry the round's `data`. Throws when the API refuses.
 */
async function outboundTarget(c: ModeContext, name: string, url: string, ordering: unknown, data: (seq: number) => string): Promise<Target> {
  const base = `${c.hookyard.url}/outbound/api/v1`;
  const headers = { authorization: `Bearer ${c.apiKey}`, "content-type": "application/json" };
  const put = await fetch(`${base}/tenants/${name}`, { method: "PUT", headers });
  const dest = await fetch(`${base}/tenants/${name}/destinations`, {
    method: "POST",
    headers,
    body: JSON.stringify({ type: "webhook", topics: "*", config: { url }, ...(ordering ? { ordering } : {}) }),
  });
  if (put.status >= 300 || dest.status !== 201) throw new Error(`outbound setup failed: ${put.status} ${dest.status} ${await dest.text()}`);
  return { url: `${base}/publish`, headers, body: (seq) => `{"tenant_id":${JSON.stringify(name)},"topic":"invoice.paid","data":${data(seq)}}` };
}

/** The ordered mode (module doc) of `product`; resolves true when the aim is met and every accepted request was delivered. */
export async function ordered(c: ModeContext, product: "gateway" | "outbound" = "gateway"): Promise<boolean> {
  const rate = Number(process.env.BENCH_ORDERED_RATE ?? 600);
  const seconds = Number(process.env.BENCH_ORDERED_SECONDS ?? 10);
  const keys = Number(process.env.BENCH_ORDERED_KEYS ?? 100);
  const roots = new Map<number, string>([
    [testPostmaster(), "postgres"],
    [c.hookyard.process.pid ?? -1, "hookyard"],
  ]);
  const cpu = () => [...usageByPart(roots).values()].reduce((n, u) => n + u.cpuMs, 0);
  log(`ordered (${product}): ${machineLine()}`);
  log(`${rate} requests/s for ${seconds} s per round, ${keys} keys`);

  const round = async (name: string, ordering: unknown): Promise<Round> => {
    const url = `${c.sink.url}/open/${name}`;
    let target: Target;
    if (product === "outbound") {
      const data = (seq: number) => jsonOfSize((pad) => ({ bench_id: `r:${seq}`, customer: `cus_${seq % keys}`, pad }));
      target = await outboundTarget(c, name, url, ordering && { key: "data.customer" }, data);
    } else {
      const source = await gatewayConnection(c.hookyard.url, c.apiKey, { source: name, destination: `${name}-sink`, url, ordering });
      const body = (seq: number) => jsonOfSize((pad) => ({ type: "invoice.paid", bench_id: `r:${seq}`, data: { customer: `cus_${seq % keys}`, pad } }));
      target = { url: source.url, body };
    }
    const cpuBefore = cpu();
    const started = Date.now();
    const run = await openLoop({ url: target.url, headers: target.headers, rate, seconds, body: target.body });
    const accepted = run.ok;
    const key = `${name}/r`;
    const deadline = Date.now() + 180_000;
    while ((await c.sink.openCount(key)) < accepted && Date.now() < deadline) await sleep(250);
    const arrivals = await c.sink.openArrivals(key);
    const cpuMs = cpu() - cpuBefore;
    const firsts = [...arrivals.entries()].map(([seq, at]) => [seq, Math.min(...at)] as const).sort((a, b) => a[0] - b[0]);
    const times = firsts.map(([, t]) => t).sort((a, b) => a - b);
    const delivered = firsts.length;
    const span = (times[times.length - 1] - times[0]) / 1000;
    // A breach: B arrived before A, two events of one key where A was accepted (answered) before B was sent.
    // (Sends of one key that were in flight together have no order: the open loop does not wait for answers.)
    const arrival = new Map(firsts);
    let breaches = 0;
    for (let k = 0; k < keys; k++) {
      const ofKey = firsts.map(([seq]) => seq).filter((seq) => seq % keys === k);
      for (const b of ofKey) if (ofKey.some((a) => run.answered[a] < run.sent[b] && arrival.get(b)! < arrival.get(a)!)) breaches++;
    }
    const r = {
      name,
      accepted,
      delivered,
      rate: delivered / span,
      drainRate: delivered / ((times[times.length - 1] - started) / 1000),
      cpuPerDelivery: cpuMs / Math.max(1, delivered),
      breaches,
    };
    log(`${name}: ${JSON.stringify(r)}`);
    return r;
  };

  const rounds = [await round("unordered-a", null), await round("ordered", { key: "body.data.customer" }), await round("unordered-b", null)];
  const unorderedRate = (rounds[0].rate + rounds[2].rate) / 2;
  const unorderedCpu = (rounds[0].cpuPerDelivery + rounds[2].cpuPerDelivery) / 2;
  const f = (n: number, d = 0) => n.toFixed(d);
  console.log(
    `\n| round (${rate}/s × ${seconds} s, ${keys} keys) | accepted | delivered | deliveries/s (first→last arrival) | deliveries/s (first send→last arrival) | CPU ms per delivery (server + PostgreSQL) | key-order breaches |`,
  );
  console.log("|---|---|---|---|---|---|---|");
  for (const r of rounds)
    console.log(`| ${r.name} | ${r.accepted} | ${r.delivered} | ${f(r.rate)} | ${f(r.drainRate)} | ${f(r.cpuPerDelivery, 2)} | ${r.breaches} |`);
  const ratio = rounds[1].rate / unorderedRate;
  console.log(
    `| ordered / unordered (same sitting) | | | ${f(ratio, 2)} | ${f(rounds[1].drainRate / ((rounds[0].drainRate + rounds[2].drainRate) / 2), 2)} | ${f(rounds[1].cpuPerDelivery / unorderedCpu, 2)} | |`,
  );
  console.log(`| load average at the end | ${loadAverage()} | | | | | |`);
  const complete = rounds.every((r) => r.delivered >= r.accepted);
  const met = complete && ratio >= 0.5 && rounds[1].breaches === 0;
  console.log(`\n[bench] ordered aim (≥ 0.5 × the unordered rate, every request delivered, no key-order breach): ${met ? "met" : "NOT met"}`);
  return met;
}
