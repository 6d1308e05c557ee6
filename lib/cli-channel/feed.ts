/**
 * Deliveries to `hookyard listen` streams cross processes through PostgreSQL: the worker that claims a
 * CLI event NOTIFYs `hookyard_cli` with `{session_id, attempt_id, event_id}` (never the body: NOTIFY
 * payloads are capped at 8000 bytes), and the process holding that session's stream forwards it. One
 * listening connection per process, reconnected after errors.
 */
import { EventEmitter } from "node:events";
import pg from "pg";
import { databaseUrl } from "@/lib/db/pool";

export const CLI_CHANNEL = "hookyard_cli";
export type CliNotice = { session_id: string; attempt_id: string; event_id: string };

const g = globalThis as unknown as { __hookyardCliFeed?: CliFeed };

class CliFeed {
  private emitter = new EventEmitter();
  private client: pg.Client | null = null;
  private connecting: Promise<void> | null = null;

  constructor() {
    this.emitter.setMaxListeners(0);
  }

  /** Calls `onNotice` for every delivery addressed to session `sessionId`; returns the unsubscribe function. */
  async subscribe(sessionId: string, onNotice: (n: CliNotice) => void): Promise<() => void> {
    await this.ensureListening();
    const handler = (n: CliNotice) => {
      if (n.session_id === sessionId) onNotice(n);
    };
    this.emitter.on("notice", handler);
    return () => this.emitter.off("notice", handler);
  }

  private ensureListening(): Promise<void> {
    if (this.client) return Promise.resolve();
    this.connecting ??= (async () => {
      const client = new pg.Client({ connectionString: databaseUrl() });
      client.on("notification", (msg) => {
        if (msg.channel !== CLI_CHANNEL || !msg.payload) return;
        try {
          this.emitter.emit("notice", JSON.parse(msg.payload) as CliNotice);
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

  private reset(client: pg.Client) {
    if (this.client === client) this.client = null;
    client.end().catch(() => {});
    if (this.emitter.listenerCount("notice") > 0) setTimeout(() => void this.ensureListening().catch(() => {}), 1000);
  }
}

/** The process-wide feed. */
export const getCliFeed = (): CliFeed => (g.__hookyardCliFeed ??= new CliFeed());
