import { EventEmitter } from "node:events";
import pg from "pg";
import { directDatabaseUrl } from "@/lib/db/pool";
import { parseRequestsPayload, REQUESTS_CHANNEL } from "@/lib/ingest/request-notifier";

type Parsed = ReturnType<typeof parseRequestsPayload>;

/**
 * Live updates of captured requests, fed by PostgreSQL LISTEN/NOTIFY: every committed request batch
 * is followed by a NOTIFY on `hookyard_requests` with the source ids and request ids (lib/ingest/request-notifier.ts) ('*' for "many"), so a
 * request captured by any process reaches viewers on every process. One listening connection per
 * process, reconnected after errors; subscribers are in-process (the SSE streams of this process).
 */
class RequestFeed {
  private emitter = new EventEmitter();
  private client: pg.Client | null = null;
  private connecting: Promise<void> | null = null;

  constructor() {
    this.emitter.setMaxListeners(0);
  }

  /**
   * Calls `onRequest` whenever requests for `sourceId` are committed, with their ids, or with null when they are
   * not known (a notification without them, or after a reconnection: read the list again). Returns the
   * unsubscribe function.
   */
  async subscribe(sourceId: string, onRequest: (requestIds: string[] | null) => void): Promise<() => void> {
    await this.ensureListening();
    const handler = (parsed: Parsed) => {
      if (parsed.all) return onRequest(null);
      const ids = parsed.sources.get(sourceId);
      if (ids) onRequest(ids.length ? ids : null);
    };
    this.emitter.on("notify", handler);
    return () => this.emitter.off("notify", handler);
  }

  private ensureListening(): Promise<void> {
    if (this.client) return Promise.resolve();
    this.connecting ??= (async () => {
      const client = new pg.Client({ connectionString: directDatabaseUrl() });
      client.on("notification", (msg) => {
        if (msg.channel === REQUESTS_CHANNEL) this.emitter.emit("notify", parseRequestsPayload(msg.payload ?? "*"));
      });
      client.on("error", () => this.reset(client));
      client.on("end", () => this.reset(client));
      await client.connect();
      await client.query(`LISTEN ${REQUESTS_CHANNEL}`);
      this.client = client;
    })().finally(() => {
      this.connecting = null;
    });
    return this.connecting;
  }

  private reset(client: pg.Client) {
    if (this.client !== client) return;
    this.client = null;
    client.end().catch(() => {});
    this.reconnect(500);
  }

  /** Listens again after `delayMs`, retrying (up to every 5 s) while the database is away and viewers remain. */
  private reconnect(delayMs: number) {
    setTimeout(() => {
      if (this.emitter.listenerCount("notify") === 0) return; // the next subscriber connects
      this.ensureListening().then(
        // Viewers may have missed a notification while reconnecting: tell them all to refresh.
        () => this.emitter.emit("notify", parseRequestsPayload("*")),
        () => this.reconnect(Math.min(delayMs * 2, 5000)),
      );
    }, delayMs).unref();
  }

  async close(): Promise<void> {
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => {});
  }
}

const globalForFeed = globalThis as unknown as { __hookyardRequestFeed?: RequestFeed };

/** The process-wide request feed. */
export function getRequestFeed(): RequestFeed {
  globalForFeed.__hookyardRequestFeed ??= new RequestFeed();
  return globalForFeed.__hookyardRequestFeed;
}
