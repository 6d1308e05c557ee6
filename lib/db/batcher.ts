/**
 * Group execution, the one group-commit mechanism (docs/architecture.md "The hot path does not go
 * through Next.js's router"): callers submit one item each and get their own result; items that arrive
 * while a batch is in flight are gathered into the next one, so under load one statement serves many
 * callers (fewer round trips, WAL flushes and socket writes) and when idle an item runs at once: there is
 * no fixed wait (a fixed window measured slower at low concurrency). A batch is cut at `maxBatch` items.
 * When a batch fails, its items run one by one so a bad item fails alone.
 *
 * Used by ingestion's request writer (lib/ingest/request-writer.ts), the outbound publish writer and the
 * delivery engines' claims and attempt records.
 */

/**
 * Observes a batcher's work, in the shape of the ingestion writer's load meter (lib/ingest/ingest-pressure.ts
 * WriterLoad): `busy()` when the batcher starts working through its queue, `wrote(items)` for each batch it
 * takes from the queue (not for the one-by-one retries of a failed batch), `idle()` when the queue is empty.
 * With several batches in flight the calls nest.
 */
export type BatchLoad = { busy(): void; wrote(items: number): void; idle(): void };

export class Batcher<I, O> {
  private queue: { item: I; resolve: (o: O) => void; reject: (e: unknown) => void }[] = [];
  private inFlight = 0;

  /**
   * @param run executes a batch; must return one result per item, in order. A throw fails the batch,
   *   whose items then run alone (each rejects with its own error).
   * @param maxBatch items per batch at most.
   * @param maxInFlight batches executing at once.
   * @param load told when the batcher is busy and how large its batches are (optional).
   */
  constructor(
    private readonly run: (items: I[]) => Promise<O[]>,
    private readonly maxBatch = 100,
    private readonly maxInFlight = 2,
    private readonly load?: BatchLoad,
  ) {}

  /** Submits `item`; resolves with its result, rejects with the error of its (single-item) execution. */
  submit(item: I): Promise<O> {
    return new Promise((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      if (this.inFlight < this.maxInFlight) void this.flush();
    });
  }

  private async flush(): Promise<void> {
    this.inFlight++;
    this.load?.busy();
    try {
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0, this.maxBatch);
        this.load?.wrote(batch.length);
        try {
          const out = await this.run(batch.map((b) => b.item));
          batch.forEach((b, i) => b.resolve(out[i]));
        } catch (err) {
          if (batch.length === 1) batch[0].reject(err);
          else
            await Promise.all(
              batch.map((b) =>
                this.run([b.item]).then(
                  (o) => b.resolve(o[0]),
                  (e) => b.reject(e),
                ),
              ),
            );
        }
      }
    } finally {
      this.inFlight--;
      this.load?.idle();
    }
  }
}
