"use client";

import { RelativeTime } from "@/components/ui/Time";

/** Headers that name a webhook's topic, in the order they are tried (providers' own first, then generic ones). */
const TOPIC_HEADERS = ["x-shopify-topic", "x-github-event", "x-gitlab-event", "x-event-type", "x-topic", "x-webhook-topic", "x-hookyard-topic"];
/** Body fields that name it. */
const TOPIC_FIELDS = ["type", "topic", "event", "event_type"];

/**
 * What a webhook is about, as people name it: a topic header (`x-shopify-topic`, `x-github-event`,
 * `x-topic`, …) or the JSON body's `type` / `topic` / `event` field; null when neither says.
 */
export function topicOf(headers: Record<string, string> | null | undefined, body: unknown): string | null {
  const lower = Object.fromEntries(Object.entries(headers ?? {}).map(([k, v]) => [k.toLowerCase(), v]));
  for (const h of TOPIC_HEADERS) if (typeof lower[h] === "string" && lower[h]) return lower[h];
  if (body && typeof body === "object" && !Array.isArray(body)) {
    for (const f of TOPIC_FIELDS) {
      const v = (body as Record<string, unknown>)[f];
      if (typeof v === "string" && v) return v;
    }
  }
  return null;
}

/** Method and path (with the query) of a row, in monospace, cut to the cell. */
export function MethodPath({ method, path, query }: { method?: string | null; path?: string | null; query?: string | null }) {
  if (!path && !method) return <span className="text-zinc-600 dark:text-zinc-400">—</span>;
  return (
    <span className="flex min-w-0 items-baseline gap-1.5 font-mono text-xs">
      {method && <span className="font-semibold">{method}</span>}
      <span className="truncate" title={`${path ?? ""}${query ? `?${query}` : ""}`}>
        {path}
        {query ? <span className="text-zinc-600 dark:text-zinc-400">?{query}</span> : null}
      </span>
    </span>
  );
}

/** A topic, or a dash. */
export function Topic({ topic }: { topic: string | null }) {
  return topic ? (
    <span className="text-xs" title={topic}>
      {topic}
    </span>
  ) : (
    <span className="text-zinc-600 dark:text-zinc-400">—</span>
  );
}

/** An attempt's answer: its HTTP status, else its error code (`TIMEOUT`, …), in full in the tooltip when cut. */
export function Response({ status, errorCode }: { status?: number | null; errorCode?: string | null }) {
  const text = String(status ?? errorCode ?? "—");
  return (
    <span className="font-mono text-xs" title={text}>
      {text}
    </span>
  );
}

/** A row's age ("3m ago"; the exact time in the tooltip). */
export const Age = ({ iso }: { iso: string }) => <RelativeTime iso={iso} className="text-xs whitespace-nowrap" />;
