/**
 * Ingestion first (docs/pipeline.md#delivery-engine, "Ingestion first, for a bounded time"): when a web process's group-commit
 * writer is saturated, ingestion is what limits how fast senders are answered. Saturated means, for
 * SATURATED_WINDOWS windows of WINDOW_MS in a row, a write in flight at least BUSY_SHARE of the time and
 * requests queueing up behind it (at least MIN_ROWS per write on average). The process then says so on
 * the `hookyard_ingest_pressure` channel, once per window, and delivery workers slow down to
 * WORKER_BURST_DELIVERY_RATE (lib/delivery/pacing.ts): the database's write capacity goes to
 * accepting requests first, and the backlog waits durably in `request_fanouts` until the burst is over.
 *
 * Nothing is sent when ingestion has headroom, so steady traffic is delivered at full speed. Measured on
 * 2 cores (docs/benchmarks.md): 50 senders as fast as they can go make writes of ~24 rows with the
 * writer always busy; a steady 1,000 requests/s makes writes of ~10 rows with the writer busy a third
 * of the time.
 */
import { getPool } from "@/lib/db/pool";
import { logger } from "@/lib/log";

/** NOTIFY channel; the payload is the writer's busy share of the last window, e.g. "0.97". */
export const INGEST_PRESSURE_CHANNEL = "hookyard_ingest_pressure";
/** Length of a measurement window, ms. */
export const WINDOW_MS = 250;
/** Busy share of a window from which the writer may count as saturated. */
const BUSY_SHARE = 0.9;
/** Mean rows per write from which requests count as queueing up. */
const MIN_ROWS = 16;
/** Saturated windows in a row before it is announced (a single slow commit is not a burst). */
const SATURATED_WINDOWS = 2;

/**
 * Measures how busy one writer is (time with at least one write in flight, rows per write) and
 * announces saturation. `busy()` and `idle()` bracket the writer's work (nested calls count once);
 * `wrote(rows)` counts each multi-row write.
 */
export class WriterLoad {
  private inFlight = 0;
  private busySince = 0;
  private busyMs = 0;
  private windowStart = 0;
  private writes = 0;
  private rows = 0;
  private saturatedRun = 0;
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly announce: (share: number) => void = notifyPressure) {}

  /** A write starts. */
  busy(now = performance.now()): void {
    if (this.inFlight++ === 0) this.busySince = now;
    if (!this.timer) {
      this.windowStart = now;
      this.busyMs = 0;
      this.timer = setInterval(() => this.close(), WINDOW_MS);
      this.timer.unref();
    }
  }

  /** A write ended. */
  idle(now = performance.now()): void {
    if (this.inFlight === 0) return;
    if (--this.inFlight === 0) this.busyMs += now - this.busySince;
  }

  /** A multi-row write of `rows` rows was made. */
  wrote(rows: number): void {
    this.writes++;
    this.rows += rows;
  }

  /**
   * Ends a window: announces saturation (the busy share is passed on); stops measuring after a window
   * without any write. Returns the window's busy share and mean rows per write.
   */
  close(now = performance.now()): { share: number; rowsPerWrite: number } {
    const length = Math.max(1, now - this.windowStart);
    const busyMs = this.busyMs + (this.inFlight > 0 ? now - this.busySince : 0);
    const share = Math.min(1, busyMs / length);
    const rowsPerWrite = this.writes ? this.rows / this.writes : 0;
    this.saturatedRun = share >= BUSY_SHARE && rowsPerWrite >= MIN_ROWS ? this.saturatedRun + 1 : 0;
    if (this.saturatedRun >= SATURATED_WINDOWS) this.announce(share);
    if (busyMs === 0 && this.timer) {
      clearInterval(this.timer);
      this.timer = null;
    }
    this.windowStart = now;
    this.busyMs = 0;
    this.writes = 0;
    this.rows = 0;
    if (this.inFlight > 0) this.busySince = now;
    return { share, rowsPerWrite };
  }
}

function notifyPressure(share: number): void {
  getPool()
    .query("SELECT pg_notify($1, $2)", [INGEST_PRESSURE_CHANNEL, share.toFixed(2)])
    .catch((err) => logger("ingest").warn("pressure notify failed", (err as Error).message));
}
