import { createElement } from "react";
import { ApiError } from "@/components/dashboard/api";
import { RelativeTime } from "@/components/ui/Time";

/**
 * Field errors of a 422 as `{field path: message}`: the gateway's `data.errors[]` / `data.field` (paths like
 * `destination.config.url`, `rules.2.delay`), or the outbound API's `data: ["config.url is required", …]`
 * (the path is the message's first word). `prefix` is put before every path (`source.` when the call was
 * `PUT /sources/{id}` but the form names fields as the connection's create body does).
 */
export function fieldErrors(error: unknown, prefix = ""): Record<string, string> {
  if (!(error instanceof ApiError) || error.status !== 422) return {};
  const data = (error.body as { data?: unknown } | null)?.data;
  const out: Record<string, string> = {};
  if (Array.isArray(data)) {
    for (const m of data) if (typeof m === "string") out[prefix + m.split(" ")[0]] = m;
    return out;
  }
  const d = (data ?? {}) as { field?: unknown; message?: unknown; errors?: { field?: string; message?: string }[] };
  for (const e of d.errors ?? []) if (e.field && !out[prefix + e.field]) out[prefix + e.field] = e.message ?? "invalid";
  if (typeof d.field === "string" && !out[prefix + d.field])
    out[prefix + d.field] = typeof d.message === "string" ? d.message.replace(`${d.field}: `, "") : "invalid";
  return out;
}

/** Parses a JSON text field: undefined when empty, else the value; throws a message naming `label`. */
export function parseJsonField(text: string, label: string): unknown {
  if (!text.trim()) return undefined;
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new Error(`${label} is not valid JSON: ${(err as Error).message}`);
  }
}

/** "a, b ,c" → ["a", "b", "c"] (undefined when empty). */
export function listField(text: string): string[] | undefined {
  const items = text
    .split(/[,\n]/)
    .map((s) => s.trim())
    .filter(Boolean);
  return items.length ? items : undefined;
}

/** A time in the kit's one format (relative, the exact zoned time on hover: components/ui/Time.tsx), or "—". */
export const when = (iso: string | null | undefined) => createElement(RelativeTime, { iso });

/** "1 event", "2 events". */
export const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;
