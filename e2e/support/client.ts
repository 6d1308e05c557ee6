/**
 * Helpers for HTTP integration tests against the servers `npm test` starts (HOOKYARD_URL trusts
 * X-Forwarded-For, HOOKYARD_URL_NO_PROXY does not).
 */
import { randomInt } from "node:crypto";
import pg from "pg";
import { type Agent, fetch as undiciFetch } from "undici";

export const BASE_URL = process.env.HOOKYARD_URL ?? "http://127.0.0.1:3000";
export const BASE_URL_NO_PROXY = process.env.HOOKYARD_URL_NO_PROXY ?? BASE_URL;
/** The outbound destination types `GET /destination-types` lists, in its order (docs/outbound.md "Destinations and their types"). */
export const OUTBOUND_TYPE_NAMES = [
  "webhook",
  "standard_webhook",
  "gateway",
  "rabbitmq",
  "redis_stream",
  "nats",
  "mqtt",
  "aws_sqs",
  "aws_s3",
  "aws_kinesis",
  "gcp_pubsub",
  "kafka",
];

/** A client IP no other test uses: send it as X-Forwarded-For to get rate-limit buckets of your own. */
export function uniqueIp(): string {
  return `10.${randomInt(1, 255)}.${randomInt(0, 255)}.${randomInt(1, 255)}`;
}

/** `POST /` with a JSON body (or raw string) as client `ip`; returns the response. */
export async function createTestUrl(body?: unknown, opts: { ip?: string; cookie?: string; baseUrl?: string; headers?: Record<string, string> } = {}) {
  return fetch(`${opts.baseUrl ?? BASE_URL}/`, {
    method: "POST",
    redirect: "manual",
    headers: {
      "content-type": "application/json",
      "x-forwarded-for": opts.ip ?? uniqueIp(),
      ...(opts.cookie ? { cookie: opts.cookie } : {}),
      ...opts.headers,
    },
    body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
  });
}

/** Creates a test URL and returns its JSON plus the public id (last segment of inspect_url). */
export async function newTestUrl(body: unknown = {}, opts: Parameters<typeof createTestUrl>[1] = {}) {
  const res = await createTestUrl(body, opts);
  if (res.status !== 201) throw new Error(`create failed: ${res.status} ${await res.text()}`);
  const json = (await res.json()) as { ingest_url: string; inspect_url: string; type: string; name: string; cli_key: string; cmd_hint: string };
  return { ...json, id: new URL(json.inspect_url).pathname.slice(1), cookie: res.headers.get("set-cookie")?.split(";")[0] };
}

/** The source preview JSON of `id`. */
export async function preview(id: string) {
  const res = await fetch(`${BASE_URL}/${id}`, { headers: { accept: "application/json" } });
  if (res.status !== 200) throw new Error(`preview failed: ${res.status}`);
  return (await res.json()) as { id: string; ingest_url: string; type: string; name: string; requests: Record<string, any>[] };
}

let pool: pg.Pool | undefined;
/** A pg pool on the test database, for assertions on what was stored. */
export function db(): pg.Pool {
  pool ??= new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 4 });
  return pool;
}

/**
 * `method url` on `base` with a bearer `key` and a JSON `body`, through `agent` (keep-alive sockets of
 * the caller's own): the parsed JSON answer ({} when empty). Throws with the status and body on 3xx-5xx.
 */
export async function bearerCall(agent: Agent, base: string, url: string, key: string, method: string, body?: unknown): Promise<Record<string, unknown>> {
  const r = await undiciFetch(`${base}${url}`, {
    method,
    dispatcher: agent,
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await r.text();
  if (r.status >= 300) throw new Error(`${method} ${url}: ${r.status} ${text}`);
  return text ? (JSON.parse(text) as Record<string, unknown>) : {};
}
