/**
 * Ingestion first, for a bounded time: while a web process reports its writer saturated
 * (lib/ingest/ingest-pressure.ts), deliveries start here at WORKER_BURST_DELIVERY_RATE per second at
 * most, and the fan-out slows with them, for the first WORKER_BURST_MAX_MS of the pressure (BurstPacer);
 * the full speed returns PRESSURE_HOLD_MS after the last report, or when the pressure outlasts that.
 */
import { getConfig } from "@/lib/config";
import { WINDOW_MS } from "@/lib/ingest/ingest-pressure";

/** How long one saturation report slows deliveries down, ms (two of the web process's windows). */
const PRESSURE_HOLD_MS = 2 * WINDOW_MS;
/** Reports further apart than this begin a new pressure episode (BurstPacer), ms. */
const BURST_QUIET_MS = 10_000;

/**
 * The pace of deliveries while ingestion is saturated (docs/pipeline.md "Ingestion first, for a bounded
 * time"): a token bucket of `rate` starts per second (bursts of up to 50 ms worth), active for
 * PRESSURE_HOLD_MS after each saturation report, but only during the first `maxMs` of a pressure
 * episode. An episode is a run of reports with gaps shorter than `quietMs`; once it has lasted `maxMs`,
 * the overload is not a burst that will pass but a steady load, and deliveries go back to full speed for
 * as long as it lasts (slowing them longer would only grow a backlog without bound). A new episode, and
 * so a new slow start, needs `quietMs` without reports first. Deliveries are thus delayed by at most
 * `maxMs` worth of slowed starts per episode.
 */
export class BurstPacer {
  private until = 0;
  private tokens = 0;
  private refilledAt = 0;
  private waiting = false;
  /** When the current pressure episode began, and when its last report came (ms). */
  private episodeStart = -Infinity;
  private lastReport = -Infinity;

  /**
   * @param rate starts per second under pressure (WORKER_BURST_DELIVERY_RATE); 0 never slows down.
   * @param maxMs how long one episode may slow deliveries (WORKER_BURST_MAX_MS), ms.
   * @param quietMs the time without reports that ends an episode, ms.
   */
  constructor(
    private readonly rate: () => number,
    private readonly maxMs: () => number = () => Infinity,
    private readonly quietMs = BURST_QUIET_MS,
  ) {}

  /** A saturation report arrived at `now` (ms). */
  note(now: number): void {
    if (this.rate() === 0) return;
    if (now - this.lastReport >= this.quietMs) this.episodeStart = now;
    this.lastReport = now;
    if (now >= this.until) {
      this.tokens = 0;
      this.refilledAt = now;
      this.waiting = false;
    }
    this.until = Math.min(now + PRESSURE_HOLD_MS, this.episodeStart + this.maxMs());
  }

  /** True while deliveries are slowed. */
  active(now: number): boolean {
    return now < this.until;
  }

  /** Deliveries started together under pressure (50 ms worth): they then share claim and record statements. */
  chunk(): number {
    return Math.max(1, Math.floor(this.rate() / 20));
  }

  /**
   * Takes a start permit at `now`: 0 when a delivery may start, else the ms to wait. Once the bucket is
   * empty, the next permits come a whole chunk at a time.
   */
  take(now: number): number {
    if (!this.active(now)) return 0;
    const rate = this.rate();
    this.tokens = Math.min(this.chunk(), this.tokens + ((now - this.refilledAt) * rate) / 1000);
    this.refilledAt = now;
    if (this.tokens >= 1 && !this.waiting) {
      this.tokens--;
      return 0;
    }
    // Empty: wait for a full chunk.
    this.waiting = this.tokens < this.chunk();
    if (!this.waiting) return this.take(now);
    return Math.max(1, Math.ceil(((this.chunk() - this.tokens) * 1000) / rate));
  }
}

const pacer = new BurstPacer(
  () => getConfig().workerBurstDeliveryRate,
  () => getConfig().workerBurstMaxMs,
);

/** A web process reported its ingestion writer saturated (a `hookyard_ingest_pressure` notification). */
export function noteIngestPressure(now = Date.now()): void {
  pacer.note(now);
}

/**
 * Resolves when a delivery may start: at once, or while ingestion (or outbound publish) is saturated,
 * when the burst pacer grants a permit. Outbound deliveries (lib/outbound/delivery.ts) take their starts
 * here, so they share WORKER_BURST_DELIVERY_RATE with the gateway's.
 */
export async function burstPermit(): Promise<void> {
  for (let wait = pacer.take(Date.now()); wait > 0; wait = pacer.take(Date.now())) await new Promise((r) => setTimeout(r, wait));
}

/**
 * Takes up to `max` start permits at `now` (all of them unless ingestion is saturated). Returns how many
 * were granted and, when fewer than `max`, the ms until the next one (lib/outbound/dispatch.ts claims that many).
 */
export function takeStartPermits(max: number, now = Date.now()): { granted: number; waitMs: number } {
  for (let granted = 0; granted < max; granted++) {
    const wait = pacer.take(now);
    if (wait > 0) return { granted, waitMs: wait };
  }
  return { granted: max, waitMs: 0 };
}

/** True while deliveries are slowed for ingestion. */
export const underIngestPressure = (now = Date.now()) => pacer.active(now);

/** Requests the fan-out should claim at once: fewer while deliveries are slowed (one chunk), `normal` otherwise. */
export const fanOutBatchSize = (normal: number, now = Date.now()) => (pacer.active(now) ? Math.min(normal, pacer.chunk()) : normal);

/** Takes one start permit at `now` (ms): 0 when a delivery may start, else the ms to wait. */
export const startPermitWait = (now: number): number => pacer.take(now);
