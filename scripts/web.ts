/**
 * The web process `npm start` supervises (scripts/start.ts; docs/architecture.md#processes): the HTTP
 * server of server.ts on PORT. Reports "ready" to its parent over IPC, receives the parts' states for
 * /healthz, stops cleanly on SIGTERM/SIGINT and stops when its parent is gone. DATABASE_URL is set by
 * the parent. `--dev` serves Next.js in development mode.
 */
import "./require-node";
import { existsSync } from "node:fs";
import { getConfig } from "@/lib/config";
import { prepareDatabase } from "@/lib/db/prepare";
import { StartFailure } from "@/lib/processes";
import { listenFailureMessage } from "@/lib/socket-relay";
import { failStart, receiveHealthMessages, stopWithParent } from "@/lib/supervisor";
import { startTracing } from "@/lib/tracing";

if (existsSync(".env")) process.loadEnvFile(".env");
// Traces first, before the server's modules run (docs/operations.md "Traces"); nothing is loaded when off.
const stopTracing = await startTracing("hookyard-web");
const dev = process.argv.includes("--dev");
const config = getConfig();
receiveHealthMessages();
const { startServer } = await import("../server");
let server: Awaited<ReturnType<typeof startServer>>;
try {
  // The supervisor migrated; a web process restarted later still refuses a schema or key it does not know (docs/operations.md).
  if (config.databaseUrl) await prepareDatabase(config.databaseUrl, { migrate: false });
  // Under the supervisor (`--child`), it holds the listening socket and relays connections (lib/socket-relay.ts).
  server = await startServer({ port: config.port, host: config.host, dev, relayed: process.argv.includes("--child") && typeof process.send === "function" });
} catch (err) {
  const message =
    listenFailureMessage(err, config.port) ??
    (err instanceof StartFailure
      ? err.message
      : `The web server could not start (${err instanceof Error ? err.message.split("\n")[0] : String(err)}); check the build (npm run build) and your settings.`);
  // Under the supervisor, it prints the sentence (once); alone, this process does.
  failStart(message, 3);
}
let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  const force = setTimeout(() => process.exit(0), 10_000);
  force.unref();
  await server.close().catch(() => {});
  await stopTracing?.();
  process.exit(0);
};
stopWithParent(stop, true);
