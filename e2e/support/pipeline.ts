/**
 * Pipeline test helpers: a connection to a local receiver, sending to its source, and reading the
 * events, ignored events and attempts the pipeline wrote.
 */
import { expect } from "vitest";
import { db } from "./client";
import { api, type TestTeam } from "./gateway";
import { eventually, type Receiver } from "./receiver";

export type TestConnection = { id: string; name: string; source: { id: string; name: string; url: string }; destination: { id: string; name: string } };

let counter = 0;
/** A connection from a new source to `receiver` at `/<tag>` (config merged into the destination's). */
export async function connectionTo(
  team: TestTeam,
  receiver: Receiver | null,
  opts: { rules?: unknown[]; destination?: Record<string, unknown>; source?: Record<string, unknown> } = {},
) {
  const tag = `p${Date.now().toString(36)}${++counter}`;
  const destination = { name: `dst-${tag}`, ...(receiver ? { config: { url: `${receiver.url}/${tag}` } } : {}), ...opts.destination };
  const res = await api(team, "POST", "/2025-07-01/connections", {
    name: `conn-${tag}`,
    source: { name: `src-${tag}`, ...opts.source },
    destination,
    rules: opts.rules ?? [],
  });
  expect(res.status, JSON.stringify(res.json)).toBe(200);
  return { ...(res.json as TestConnection), tag };
}

/** POSTs `body` (JSON unless a string) to `url`; returns the status and the request id. */
export async function send(url: string, body: unknown = { ok: true }, init: { method?: string; headers?: Record<string, string> } = {}) {
  const res = await fetch(url, {
    method: init.method ?? "POST",
    headers: { ...(typeof body === "string" ? {} : { "content-type": "application/json" }), ...init.headers },
    body: init.method === "GET" ? undefined : typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let requestId: string | undefined;
  try {
    requestId = JSON.parse(text).request_id;
  } catch {}
  return { status: res.status, text, requestId: requestId!, headers: res.headers };
}

export const eventsOf = async (requestId: string) => (await db().query("SELECT * FROM events WHERE request_id = $1 ORDER BY created_at, id", [requestId])).rows;
export const ignoredOf = async (requestId: string) =>
  (await db().query("SELECT * FROM ignored_events WHERE request_id = $1 ORDER BY created_at, id", [requestId])).rows;
export const attemptsOf = async (eventId: string) => (await db().query("SELECT * FROM attempts WHERE event_id = $1 ORDER BY attempt_number", [eventId])).rows;
export const requestRow = async (requestId: string) => (await db().query("SELECT * FROM requests WHERE id = $1", [requestId])).rows[0];

/** Waits until the request has `count` events (default 1) all in one of `statuses`; returns them. */
export function eventsIn(requestId: string, statuses: string[], count = 1, timeoutMs = 15_000) {
  return eventually(async () => {
    const rows = await eventsOf(requestId);
    return rows.length >= count && rows.every((r) => statuses.includes(r.status)) ? rows : null;
  }, timeoutMs);
}

/** Waits until the request has `count` ignored events; returns them. */
export function ignoredIn(requestId: string, count = 1) {
  return eventually(async () => {
    const rows = await ignoredOf(requestId);
    return rows.length >= count ? rows : null;
  });
}

/** The requests the receiver got under `/<tag>`. */
export const receivedBy = (receiver: Receiver, tag: string) =>
  receiver.received.filter((r) => r.url === `/${tag}` || r.url.startsWith(`/${tag}/`) || r.url.startsWith(`/${tag}?`));
