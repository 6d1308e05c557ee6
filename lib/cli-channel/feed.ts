/**
 * Deliveries to `hookyard listen` streams cross processes through PostgreSQL: the worker that claims a
 * CLI event NOTIFYs `hookyard_cli` with `{session_id, attempt_id, event_id}` (never the body: NOTIFY
 * payloads are capped at 8000 bytes), and the process holding that session's stream forwards it. One
 * listening connection per process, reconnected after errors.
 */
import pg from "pg";
import { directDatabaseUrl } from "@/lib/db/pool";

export const CLI_CHANNEL = "hookyard_cli";
/** A session is live while its stream refreshed `last_seen_at` within this many ms. */
export const SESSION_LIVE_MS = 15_000;
type CliNotice = { session_id: string; attempt_id: string; event_id: string };

const g = globalThis as unknown as { __hookyardCliFeed?: CliFeed };

class CliFeed {
  /** The streams open in this process, by session id. */
  private streams = new Map<string, Set<(n: CliNotice) => void>>();
  private client: pg.Client | null = null;
  private connecting: Promise<void> | null = null;

  /** Calls `onNotice` for every delivery addressed to session `sessionId`; returns the unsubscribe function. */
  async subscribe(sessionId: string, onNotice: (n: CliNotice) => void): Promise<() => void> {
    await this.ensureListening();
    let set = this.streams.get(sessionId);
    if (!set) this.streams.set(sessionId, (set = new Set()));
    set.add(onNotice);
    return () => {
      set.delete(onNotice);
      if (set.size === 0 && this.streams.get(sessionId) === set) this.streams.delete(sessionId);
    };
  }

  private dispatch(n: CliNotice) {
    for (const onNotice of this.streams.get(n.session_id) ?? []) onNotice(n);
  }

  private ensureListening(): Promise<void> {
    if (this.client) return Promise.resolve();
    this.connecting ??= (async () => {
      const client = new pg.Client({ connectionString: directDatabaseUrl() });
      client.on("notification", (msg) => {
        if (msg.channel !== CLI_CHANNEL || !msg.payload) return;
        try {
          this.dispatch(JSON.parse(msg.payload) as CliNotice);
        } catch {}
      });
      client.on("error", () => this.reset(client));
      client.on("end", () => this.reset(client));
      await client.connect();
      await client.query(`LISTEN ${CLI_CHANNEL}`);
      this.client = client;
    })().finally(() => (this.connecting = null));
    return this.connecting;
  }

  /** Stops listening (server shutdown); open streams are ended by the HTTP server. */
  async close(): Promise<void> {
    const client = this.client;
    this.client = null;
    this.streams.clear();
    await client?.end().catch(() => {});
  }

  private reset(client: pg.Client) {
    if (this.client === client) this.client = null;
    client.end().catch(() => {});
    // Retried every second while the database is away and streams remain open.
    if (this.streams.size > 0) setTimeout(() => void this.ensureListening().catch(() => this.reset(client)), 1000).unref();
  }
}

/** The process-wide feed. */
export const getCliFeed = (): CliFeed => (g.__hookyardCliFeed ??= new CliFeed());
