/**
 * `POST /publish` (issue 13 §3; reference §1 PublishRequest, §4 Matching): validates the event, commits
 * it with one delivery per matching destination (enabled, topic, filter) and their jobs in one
 * transaction, and answers 202 `{id, duplicate, destination_ids}`. The event's `data` is kept as the
 * bytes received. A repeated `id` answers `duplicate: true` and delivers nothing again. Events that
 * match nothing are stored too, so the operator can see them.
 */
import { outboundConfig } from "@/lib/outbound/settings";
import { randomBytes } from "node:crypto";
import { z } from "zod";
import { getPool } from "@/lib/db/pool";
import { inTransaction } from "@/lib/db/transaction";
import { Batcher } from "@/lib/delivery/batcher";
import { jsonMatches } from "@/lib/gateway/pipeline/filter";
import { base62 } from "@/lib/ids";
import { OutboundError, outboundInvalid } from "@/lib/http/outbound";
import { enqueueOutboundDeliveries } from "@/lib/outbound/delivery";

export const ZPublish = z.strictObject({
  id: z.string().min(1).max(255).regex(/^[\x21-\x7e]+$/).optional(),
  tenant_id: z.string().min(1).max(255),
  destination_id: z.string().min(1).max(255).optional(),
  topic: z.string().max(255).optional(),
  eligible_for_retry: z.boolean().optional(),
  metadata: z.record(z.string(), z.string()).optional(),
  time: z.iso.datetime({ offset: true }).optional(),
  data: z.record(z.string(), z.unknown()),
});

/**
 * The exact text of top-level member `key` of the JSON object `text` (its value as sent: key order and
 * spacing kept), or null when absent. `text` is known to be valid JSON.
 */
export function rawMember(text: string, key: string): string | null {
  let i = text.indexOf("{") + 1;
  const skipSpace = () => {
    while (i < text.length && /\s/.test(text[i]!)) i++;
  };
  const skipString = () => {
    const start = i++;
    while (text[i] !== '"') i += text[i] === "\\" ? 2 : 1;
    i++;
    return JSON.parse(text.slice(start, i)) as string;
  };
  const skipValue = () => {
    let depth = 0;
    for (; i < text.length; i++) {
      const c = text[i]!;
      if (c === '"') {
        skipString();
        i--;
      } else if (c === "{" || c === "[") depth++;
      else if (c === "}" || c === "]") {
        if (depth === 0) return;
        depth--;
      } else if (c === "," && depth === 0) return;
    }
  };
  for (;;) {
    skipSpace();
    if (text[i] !== '"') return null;
    const name = skipString();
    skipSpace();
    i++; // ':'
    skipSpace();
    const start = i;
    skipValue();
    if (name === key) return text.slice(start, i).trimEnd();
    skipSpace();
    if (text[i] !== ",") return null;
    i++;
  }
}

/** True when a destination subscribed to `topics` receives `topic`: `*`, exact, or a glob with `*`. */
export function topicMatches(topics: string[], topic: string): boolean {
  if (!topic || topic === "*") return true;
  return topics.some((t) => t === "*" || t === topic || (t.includes("*") && new RegExp(`^${t.split("*").map((p) => p.replace(/[.+?^${}()|[\]\\]/g, "\\$&")).join(".*")}$`).test(topic)));
}

/** True when `filter` (simple-json-match; null or `{}` = all) matches the event `{id, topic, time, metadata, data}`. */
export function filterMatches(filter: Record<string, unknown> | null, event: { id: string; topic: string; time: string; metadata: Record<string, string>; data: unknown }): boolean {
  if (!filter || Object.keys(filter).length === 0) return true;
  try {
    return jsonMatches(event, filter);
  } catch {
    return false;
  }
}

/** `POST /publish` with `body` (parsed) and `raw` (its text). Throws 422 for an invalid event. */
export async function publish(body: unknown, raw: string): Promise<{ status: number; body: { id: string; duplicate: boolean; destination_ids: string[] } }> {
  const p = ZPublish.safeParse(body ?? {});
  if (!p.success) {
    const dataIssue = p.error.issues.find((i) => i.path[0] === "data");
    throw outboundInvalid(dataIssue ? ["data must be a valid JSON object"] : p.error.issues.map((i) => (i.code === "invalid_type" && i.input === undefined ? `${i.path.join(".")} is required` : `${i.path.join(".")}: ${i.message}`)));
  }
  const e = p.data;
  const cfg = outboundConfig();
  const topic = e.topic ?? "";
  if (cfg.topics.length) {
    if (!topic) throw outboundInvalid(["topic is required"]);
    if (topic !== "*" && !cfg.topics.includes(topic)) throw outboundInvalid(["topic is invalid"]);
  }
  const id = e.id ?? cfg.prefixes.event + base62(randomBytes(16));
  const time = e.time ? new Date(e.time) : new Date();
  const metadata = e.metadata ?? {};
  const dataText = rawMember(raw, "data") ?? JSON.stringify(e.data);
  const { rows: destinations } = await getPool().query<{ id: string; topics: string[]; filter: Record<string, unknown> | null }>(
    "SELECT id, topics, filter FROM outbound_destinations WHERE tenant_id = $1 AND disabled_at IS NULL AND ($2::text IS NULL OR id = $2) ORDER BY created_at, id",
    [e.tenant_id, e.destination_id ?? null],
  );
  const view = { id, topic, time: time.toISOString().replace(/\.\d{3}Z$/, "Z"), metadata, data: e.data };
  const matched = destinations.filter((d) => topicMatches(d.topics, topic) && filterMatches(d.filter, view)).map((d) => d.id);
  const written = await writer.submit({ id, tenantId: e.tenant_id, topic, time, eligible: e.eligible_for_retry ?? true, metadata, data: Buffer.from(dataText, "utf8"), destinationId: e.destination_id ?? null, matched });
  if (written.tenantId !== e.tenant_id) throw new OutboundError(409, "event id already used by another tenant");
  return { status: 202, body: { id, duplicate: written.duplicate, destination_ids: written.matched } };
}

type Pending = { id: string; tenantId: string; topic: string; time: Date; eligible: boolean; metadata: Record<string, string>; data: Buffer; destinationId: string | null; matched: string[] };
type Written = { duplicate: boolean; tenantId: string; matched: string[] };

/**
 * Group commit (design "The hot path"): the events published meanwhile are written by one transaction
 * (events, their deliveries and jobs), each answered only after it committed. An event whose id exists
 * already is a duplicate: nothing is queued again and the first one's matches are answered.
 */
const writer = new Batcher<Pending, Written>(async (items) =>
  inTransaction(async (client) => {
    const { rows: inserted } = await client.query<{ id: string }>(
      `INSERT INTO outbound_events (id, tenant_id, topic, time, eligible_for_retry, metadata, data, destination_id, matched_destination_ids)
       SELECT t.id, t.tenant_id, t.topic, t.time, t.eligible, t.metadata, t.data, t.destination_id, ARRAY(SELECT jsonb_array_elements_text(t.matched))
         FROM unnest($1::text[], $2::text[], $3::text[], $4::timestamptz[], $5::bool[], $6::jsonb[], $7::bytea[], $8::text[], $9::jsonb[])
              AS t(id, tenant_id, topic, time, eligible, metadata, data, destination_id, matched)
       ON CONFLICT (id) DO NOTHING RETURNING id`,
      [
        items.map((i) => i.id), items.map((i) => i.tenantId), items.map((i) => i.topic), items.map((i) => i.time), items.map((i) => i.eligible),
        items.map((i) => JSON.stringify(i.metadata)), items.map((i) => i.data), items.map((i) => i.destinationId), items.map((i) => JSON.stringify(i.matched)),
      ],
    );
    const fresh = new Set(inserted.map((r) => r.id));
    // The same id twice in one batch: the first is new, the second a duplicate of it.
    const seen = new Set<string>();
    const isNew = items.map((i) => fresh.has(i.id) && !seen.has(i.id) && (seen.add(i.id), true));
    await enqueueOutboundDeliveries(client, items.filter((_, n) => isNew[n]).flatMap((i) => i.matched.map((d) => ({ eventId: i.id, destinationId: d, tenantId: i.tenantId }))));
    const old = items.filter((_, n) => !isNew[n]).map((i) => i.id);
    const { rows: existing } = old.length
      ? await client.query<{ id: string; tenant_id: string; matched_destination_ids: string[] }>("SELECT id, tenant_id, matched_destination_ids FROM outbound_events WHERE id = ANY($1)", [old])
      : { rows: [] };
    const byId = new Map(existing.map((r) => [r.id, r]));
    return items.map((i, n) => {
      if (isNew[n]) return { duplicate: false, tenantId: i.tenantId, matched: i.matched };
      const first = byId.get(i.id) ?? { tenant_id: i.tenantId, matched_destination_ids: i.matched };
      return { duplicate: true, tenantId: first.tenant_id, matched: first.matched_destination_ids };
    });
  }),
200, 2);
