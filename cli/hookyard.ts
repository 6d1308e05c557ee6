/**
 * `hookyard`: the command-line tool of Hookyard (docs/cli.md).
 *
 *   hookyard listen <port|url> <source-name> [connection-name] --cli-key <key> --server <url> [--path /p]
 *
 * Opens a session on the server (`POST /cli/sessions`, authenticated by the workspace's cli_key), reads
 * its stream of deliveries (server-sent events), forwards each to the local server with its original
 * method, path, query, headers and body, reports the answer back (`POST /cli/attempts/{id}`) so it
 * becomes an attempt, and prints one line per event. Reconnects after network loss or a server restart.
 */
import { request } from "undici";

const MAX_BODY_BYTES = 64 * 1024;
const HOP_BY_HOP = new Set(["connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade", "te", "trailer", "host", "content-length"]);
const HELP = `Usage: hookyard listen <port|url> <source-name> [connection-name] --cli-key <key> --server <url> [--path /p]

Forwards the requests sent to a Hookyard source to a server on your machine.
  <port|url>        where to forward: 3000 means http://localhost:3000
  <source-name>     the source (a console test URL's name, or a gateway source); created if missing
  [connection-name] an existing CLI connection of the source to use
  --cli-key <key>   the workspace's cli_key (env HOOKYARD_CLI_KEY)
  --server <url>    the Hookyard server (env HOOKYARD_SERVER, default http://localhost:3000)
  --path <path>     path prefix on the local server for a new connection (default /)
`;

type Args = { target: string; source: string; connection?: string; cliKey: string; server: string; path?: string };

function parseArgs(argv: string[]): Args | string {
  const positional: string[] = [];
  const flags: Record<string, string> = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--help" || a === "-h") return HELP;
    if (a.startsWith("--")) {
      const [k, v] = a.includes("=") ? [a.slice(2, a.indexOf("=")), a.slice(a.indexOf("=") + 1)] : [a.slice(2), argv[++i]];
      if (v === undefined) return `--${k} needs a value\n\n${HELP}`;
      flags[k] = v;
    } else positional.push(a);
  }
  if (positional[0] !== "listen") return HELP;
  const [, target, source, connection] = positional;
  const cliKey = flags["cli-key"] ?? process.env.HOOKYARD_CLI_KEY;
  if (!target || !source) return `listen needs <port|url> and <source-name>\n\n${HELP}`;
  if (!cliKey) return `--cli-key is required (or HOOKYARD_CLI_KEY)\n\n${HELP}`;
  return {
    target: /^\d+$/.test(target) ? `http://localhost:${target}` : target.replace(/\/+$/, ""),
    source,
    connection,
    cliKey,
    server: (flags.server ?? process.env.HOOKYARD_SERVER ?? "http://localhost:3000").replace(/\/+$/, ""),
    path: flags.path,
  };
}

const time = () => new Date().toTimeString().slice(0, 8);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

class Fatal extends Error {}

type Session = { id: string; source: { name: string; url: string }; connections: { name: string; full_name: string; path: string }[]; signing_secret?: string };
type Delivery = {
  attempt_id: string;
  event_id: string;
  cli_path: string;
  request: { method: string; path: string; query: string; headers: Record<string, string>; body_base64: string | null; timeout_ms?: number };
};

/**
 * How long the server may take to answer the session request, or the stream's headers (ms); past it the
 * attempt counts as a failed reconnection and is tried again (docs/cli.md "Reconnecting"). Without it a
 * connection the server never answers would hold the CLI for undici's 300 s.
 */
const ANSWER_TIMEOUT_MS = 15_000;

/** A signal that aborts `fetch` with "no answer in 15 s" unless `answered()` is called first. */
function answerDeadline(): { signal: AbortSignal; answered: () => void } {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new Error(`no answer in ${ANSWER_TIMEOUT_MS / 1000} s`)), ANSWER_TIMEOUT_MS);
  return { signal: controller.signal, answered: () => clearTimeout(timer) };
}

async function createSession(a: Args): Promise<Session> {
  const deadline = answerDeadline();
  const res = await fetch(`${a.server}/cli/sessions`, {
    signal: deadline.signal,
    method: "POST",
    headers: { authorization: `Bearer ${a.cliKey}`, "content-type": "application/json" },
    body: JSON.stringify({ source_name: a.source, ...(a.connection ? { connection_name: a.connection } : {}), ...(a.path ? { path: a.path } : {}) }),
  });
  const body = (await res.json().catch(() => ({}))) as { message?: string } & Session;
  deadline.answered();
  if (res.status === 401) throw new Fatal(`The server refused the cli_key (${body.message ?? "401"}). Copy the key from the console's command.`);
  if (res.status === 422) throw new Fatal(body.message ?? "The server refused the arguments.");
  if (!res.ok) throw new Error(`the server answered ${res.status}`);
  return body;
}

function joinPath(prefix: string, path: string): string {
  const p = prefix.replace(/\/+$/, "");
  return p + (path.startsWith("/") ? path : `/${path}`) || "/";
}

async function forward(a: Args, sessionId: string, d: Delivery): Promise<void> {
  const r = d.request;
  const path = joinPath(d.cli_path, r.path);
  const url = `${a.target}${path}${r.query ? `?${r.query}` : ""}`;
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(r.headers)) if (!HOP_BY_HOP.has(k.toLowerCase())) headers[k] = v;
  const started = performance.now();
  let result: { status?: number; body?: string; error?: string };
  try {
    const res = await request(url, {
      method: r.method as "POST",
      headers,
      body: r.body_base64 && r.method !== "GET" && r.method !== "HEAD" ? Buffer.from(r.body_base64, "base64") : undefined,
      headersTimeout: r.timeout_ms ?? 30_000,
      bodyTimeout: r.timeout_ms ?? 30_000,
    });
    // Keep the first 64 KiB of the answer (what an attempt stores), reading the rest to the end.
    const chunks: Buffer[] = [];
    let kept = 0;
    for await (const chunk of res.body) {
      const buf = chunk as Buffer;
      if (kept < MAX_BODY_BYTES) {
        chunks.push(buf.subarray(0, MAX_BODY_BYTES - kept));
        kept += Math.min(buf.length, MAX_BODY_BYTES - kept);
      }
    }
    result = { status: res.statusCode, body: Buffer.concat(chunks).toString("utf8") };
  } catch (err) {
    const e = err as { code?: string; cause?: { code?: string }; message: string };
    result = { error: e.cause?.code ?? e.code ?? e.message };
  }
  const latency = Math.round(performance.now() - started);
  console.log(`${time()} ${r.method} ${path}${r.query ? `?${r.query}` : ""} → ${result.error ? `ERROR ${result.error}` : result.status} (${latency} ms)`);
  const report = await fetch(`${a.server}/cli/attempts/${encodeURIComponent(d.attempt_id)}`, {
    method: "POST",
    headers: { authorization: `Bearer ${a.cliKey}`, "content-type": "application/json" },
    body: JSON.stringify({ event_id: d.event_id, session_id: sessionId, latency_ms: latency, ...result }),
  }).catch(() => null);
  if (report && !report.ok && report.status !== 409) console.error(`${time()} could not report the result of ${d.event_id} (${report.status})`);
}

/** Reads one stream until it ends; resolves on a clean end, throws on errors (404 = session gone). */
async function readStream(a: Args, sessionId: string, onReady: () => void): Promise<void> {
  // The bound is on the headers only: the stream itself stays open as long as the server keeps it.
  const deadline = answerDeadline();
  const res = await fetch(`${a.server}/cli/sessions/${encodeURIComponent(sessionId)}/stream`, {
    signal: deadline.signal,
    headers: { authorization: `Bearer ${a.cliKey}`, accept: "text/event-stream" },
  }).finally(deadline.answered);
  if (res.status === 401) throw new Fatal("The server refused the cli_key.");
  if (res.status === 404) throw Object.assign(new Error("the session expired"), { sessionGone: true });
  if (!res.ok || !res.body) throw new Error(`the stream answered ${res.status}`);
  const decoder = new TextDecoder();
  let buffer = "";
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    let end: number;
    while ((end = buffer.indexOf("\n\n")) !== -1) {
      const message = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let event = "message";
      const data: string[] = [];
      for (const line of message.split("\n")) {
        if (line.startsWith("event:")) event = line.slice(6).trim();
        else if (line.startsWith("data:")) data.push(line.slice(5).trim());
      }
      if (event === "ready") onReady();
      else if (event === "attempt") void forward(a, sessionId, JSON.parse(data.join("\n")) as Delivery);
    }
  }
  throw new Error("the stream ended");
}

async function listen(a: Args): Promise<never> {
  const configured = Number.parseInt(process.env.HOOKYARD_CLI_MAX_RETRIES ?? "", 10);
  const maxRetries = Number.isFinite(configured) && configured >= 0 ? configured : 10;
  let session: Session | null = null;
  let failures = 0;
  let delay = 1000;
  for (;;) {
    try {
      if (!session) {
        session = await createSession(a);
        console.log(`Listening on ${session.source.name}: send requests to ${session.source.url}`);
        for (const c of session.connections) console.log(`  ${c.full_name} → ${a.target}${c.path === "/" ? "" : c.path}`);
        if (session.signing_secret)
          console.log(
            `  x-gateway-signature: base64 HMAC-SHA256 of the body with the workspace's CLI forwarding signing secret ${session.signing_secret} (not its production signing secret; docs/cli.md)`,
          );
      }
      await readStream(a, session.id, () => {
        if (failures > 0) console.log(`${time()} reconnected`);
        failures = 0;
        delay = 1000;
      });
    } catch (err) {
      if (err instanceof Fatal) {
        console.error(err.message);
        process.exit(1);
      }
      if ((err as { sessionGone?: boolean }).sessionGone) session = null;
      failures++;
      const reason = (err as { cause?: { code?: string } }).cause?.code ?? (err as Error).message;
      if (failures > maxRetries) {
        console.error(`Giving up after ${maxRetries} failed reconnections in a row: ${reason}. Is ${a.server} reachable?`);
        process.exit(1);
      }
      console.error(`${time()} connection lost (${reason}); reconnecting in ${Math.round(delay / 1000)} s (${failures}/${maxRetries})`);
      await sleep(delay);
      delay = Math.min(delay * 2, 30_000);
    }
  }
}

const parsed = parseArgs(process.argv.slice(2));
if (typeof parsed === "string") {
  console.log(parsed);
  process.exit(parsed === HELP ? 0 : 2);
}
await listen(parsed);
