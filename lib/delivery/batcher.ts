/**
 * Group execution (the pattern of ingestion's group commit, design "The hot path"): callers submit one
 * item each and get their own result; items that arrive while a batch is in flight are gathered into
 * the next one, so under load one statement serves many deliveries (fewer round trips and socket
 * writes) and when idle an item runs at once. When a batch fails, its items run one by one so a bad
 * item fails alone.
 */
export class Batcher<I, O> {
  private queue: { item: I; resolve: (o: O) => void; reject: (e: unknown) => void }[] = [];
  private inFlight = 0;

  /**
   * @param run executes a batch; must return one result per item, in order.
   * @param maxBatch items per batch at most.
   * @param maxInFlight batches executing at once.
   */
  constructor(private readonly run: (items: I[]) => Promise<O[]>, private readonly maxBatch = 100, private readonly maxInFlight = 2) {}

  /** Submits `item`; resolves with its result, rejects with the error of its (single-item) execution. */
  submit(item: I): Promise<O> {
    return new Promise((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      if (this.inFlight < this.maxInFlight) void this.flush();
    });
  }

  private async flush(): Promise<void> {
    this.inFlight++;
    try {
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0, this.maxBatch);
        try {
          const out = await this.run(batch.map((b) => b.item));
          batch.forEach((b, i) => b.resolve(out[i]));
        } catch (err) {
          if (batch.length === 1) batch[0].reject(err);
          else await Promise.all(batch.map((b) => this.run([b.item]).then((o) => b.resolve(o[0]), (e) => b.reject(e))));
        }
      }
    } finally {
      this.inFlight--;
    }
  }
}
