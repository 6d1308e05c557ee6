/**
 * A dedicated PostgreSQL connection that LISTENs to notification channels for a worker loop (the
 * fan-out's, lib/gateway/pipeline/fanout-queue.ts; the outbound dispatcher's, lib/outbound/dispatch.ts).
 * A lost connection is reopened every second until the database is back; the loops also poll on a
 * timer, so a notification sent meanwhile is only late, never lost.
 */
import pg from "pg";
import { directDatabaseUrl } from "@/lib/db/pool";
import { logger } from "@/lib/log";

const log = logger("listen");

/** A running listener; `stop` closes its connection. */
type Listener = { stop: () => Promise<void> };

/**
 * LISTENs to `channels` (plain identifiers) and calls `onNotification(channel, payload)` for each
 * notification. Resolves once listening; rejects when the first connection fails (later failures
 * reconnect). `name` appears in the log when the connection is lost.
 */
export async function listenTo(name: string, channels: string[], onNotification: (channel: string, payload: string) => void): Promise<Listener> {
  let client: pg.Client | null = null;
  let stopped = false;
  const listen = async () => {
    const c = new pg.Client({ connectionString: directDatabaseUrl() });
    c.on("notification", (msg) => onNotification(msg.channel, msg.payload ?? ""));
    c.on("error", (err) => {
      if (client !== c) return; // a failed connect: listen() rejects and relisten retries
      log.warn(`${name} listener lost; reconnecting`, err.message);
      client = null;
      relisten();
    });
    await c.connect().catch((err: Error) => (c.end().catch(() => {}), Promise.reject(err)));
    await c.query(channels.map((ch) => `LISTEN ${ch}`).join("; "));
    if (stopped) await c.end().catch(() => {});
    else client = c;
  };
  const relisten = () => void (stopped || setTimeout(() => void listen().catch(relisten), 1000).unref());
  await listen();
  return {
    stop: async () => {
      stopped = true;
      await client?.end().catch(() => {});
    },
  };
}
