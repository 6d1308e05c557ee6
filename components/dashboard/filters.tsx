"use client";

import { useQuery } from "@tanstack/react-query";
import { useMemo } from "react";
import { apiAll } from "@/components/dashboard/api";
import { Field, Input, Select } from "@/components/ui/Field";

/**
 * The list filters the explorers and the bulk page share: the bulk page builds its filter with the same
 * controls as the explorers (docs/dashboard.md#bulk-operations). A filter is a flat record kept in the page's URL (`?status=FAILED&…`);
 * it converts to the list endpoint's parameters and to a bulk operation's `query` (docs/gateway-api.md).
 */
export type Filter = Partial<Record<FilterKey, string>>;
type FilterKey =
  "status" | "webhook_id" | "destination_id" | "source_id" | "cause" | "log_level" | "bulk_retry_id" | "issue_id" | "created_after" | "created_before";

export const EVENT_STATUSES = ["FAILED", "SUCCESSFUL", "QUEUED", "SCHEDULED", "HOLD", "CANCELLED"];
const REQUEST_STATUSES = ["accepted", "rejected"];
export const IGNORED_CAUSES = ["FILTERED", "TRANSFORMATION_FAILED", "DEDUPLICATED", "DISABLED", "CLI_DISCONNECTED"];
const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug"];
/** Filters shown only while set (reached from a link: a bulk operation's events, an issue's events), so they can be cleared. */
const LINKED_ONLY: readonly FilterKey[] = ["bulk_retry_id", "issue_id"];

/** The fields of each kind of record. */
const FIELDS = {
  events: ["status", "webhook_id", "destination_id", "created_after", "created_before", "bulk_retry_id", "issue_id"],
  requests: ["status", "source_id", "created_after", "created_before", "bulk_retry_id"],
  "ignored-events": ["cause", "webhook_id", "created_after", "created_before"],
  attempts: ["status", "destination_id", "created_after", "created_before"],
  executions: ["log_level", "webhook_id", "created_after", "created_before", "issue_id"],
  // Requests of archived days (docs/gateway-api.md "Replay from the archive"): the filters that replay accepts.
  "archived-requests": ["source_id", "created_after", "created_before"],
} as const satisfies Record<string, readonly FilterKey[]>;
export type RecordKind = keyof typeof FIELDS;

/** The filter of a URL's search parameters, keeping the fields of `kind`. */
export function filterFromParams(params: URLSearchParams, kind: RecordKind): Filter {
  const f: Filter = {};
  for (const k of FIELDS[kind]) {
    const v = params.get(k);
    if (v) f[k] = v;
  }
  return f;
}

/** The filter as URL search parameters (for links between the explorers and the bulk page). */
export function filterToParams(f: Filter): URLSearchParams {
  const sp = new URLSearchParams();
  for (const [k, v] of Object.entries(f)) if (v) sp.set(k, v);
  return sp;
}

/** A `datetime-local` value (local time) as ISO, or undefined when empty or invalid. */
const iso = (local: string | undefined) => {
  if (!local) return undefined;
  const t = new Date(local);
  return Number.isNaN(t.getTime()) ? undefined : t.toISOString();
};

/** Parameters of the list endpoint (`created_at[gte]`, …). */
export function filterToListParams(f: Filter): Record<string, string | undefined> {
  const { created_after, created_before, ...rest } = f;
  return { ...rest, "created_at[gte]": iso(created_after), "created_at[lte]": iso(created_before) };
}

/** A bulk operation's `query` (the list filters as JSON). */
export function filterToBulkQuery(f: Filter): Record<string, unknown> {
  const { created_after, created_before, ...rest } = f;
  const q: Record<string, unknown> = Object.fromEntries(Object.entries(rest).filter(([, v]) => v));
  const created = { ...(iso(created_after) ? { gte: iso(created_after) } : {}), ...(iso(created_before) ? { lte: iso(created_before) } : {}) };
  if (Object.keys(created).length) q.created_at = created;
  return q;
}

/**
 * The inverse of {@link filterToBulkQuery} for display (past operations' filters), e.g.
 * `status = FAILED · created_at gte 2026-…`; ids found in `names` (id → name) are shown by name.
 */
export function describeQuery(q: Record<string, unknown>, names?: Map<string, string>): string {
  const show = (x: unknown): string => (Array.isArray(x) ? x.map(show).join(", ") : typeof x === "string" ? (names?.get(x) ?? x) : String(x));
  // A replay's target reads last (the API stores jsonb, whose key order is not the one sent).
  const entries = Object.entries(q).sort(([a], [b]) => Number(a === "target") - Number(b === "target"));
  const parts = entries.map(([k, v]) =>
    typeof v === "object" && v !== null && !Array.isArray(v)
      ? `${k} ${Object.entries(v)
          .map(([op, x]) => `${op} ${show(x)}`)
          .join(", ")}`
      : `${k} = ${show(v)}`,
  );
  return parts.length ? parts.join(" · ") : "everything";
}

type Named = { id: string; name: string };
/** The team's sources, connections or destinations (by name, up to ALL_MAX), cached for a minute; for pickers and for names instead of ids. */
export const useNamed = (path: "sources" | "connections" | "destinations", enabled = true) =>
  useQuery({ queryKey: ["names", path], queryFn: () => apiAll<Named & { full_name?: string }>(`${path}?order_by=name&dir=asc`), enabled, staleTime: 60_000 });

/** Display names by id of the team's `paths` lists together (a connection's is `source -> connection`), for showing names instead of ids. */
export function useNames(...paths: ("sources" | "connections" | "destinations")[]): Map<string, string> {
  const lists = [
    useNamed("sources", paths.includes("sources")),
    useNamed("connections", paths.includes("connections")),
    useNamed("destinations", paths.includes("destinations")),
  ];
  const [sources, connections, destinations] = lists.map((l) => l.data);
  return useMemo(
    () => new Map([sources, connections, destinations].flatMap((d) => d?.models ?? []).map((m) => [m.id, m.full_name ?? m.name])),
    [sources, connections, destinations],
  );
}

const LABELS: Record<FilterKey, string> = {
  status: "Status",
  webhook_id: "Connection",
  destination_id: "Destination",
  source_id: "Source",
  cause: "Cause",
  log_level: "Log level",
  bulk_retry_id: "Bulk operation",
  issue_id: "Issue",
  created_after: "Created after",
  created_before: "Created before",
};

/**
 * The filter controls of `kind`: selects for status, cause, connection, destination and source (from the
 * team's own lists), and a date range. Calls `onChange` with the whole new filter.
 */
export function FilterControls({ kind, value, onChange }: { kind: RecordKind; value: Filter; onChange: (f: Filter) => void }) {
  const fields: readonly FilterKey[] = FIELDS[kind];
  const connections = useNamed("connections", fields.includes("webhook_id"));
  const destinations = useNamed("destinations", fields.includes("destination_id"));
  const sources = useNamed("sources", fields.includes("source_id"));
  const set = (k: FilterKey, v: string) => onChange({ ...value, [k]: v || undefined });
  const options = (k: FilterKey): { value: string; label: string }[] => {
    if (k === "status")
      return (kind === "requests" ? REQUEST_STATUSES : kind === "attempts" ? ["SUCCESSFUL", "FAILED"] : EVENT_STATUSES).map((s) => ({ value: s, label: s }));
    if (k === "cause") return IGNORED_CAUSES.map((s) => ({ value: s, label: s }));
    if (k === "log_level") return LOG_LEVELS.map((s) => ({ value: s, label: s }));
    const list = k === "webhook_id" ? connections.data : k === "destination_id" ? destinations.data : sources.data;
    return (list?.models ?? []).map((m) => ({ value: m.id, label: m.full_name ?? m.name }));
  };
  return (
    <div className="grid grid-cols-1 gap-3 sm:grid-cols-2 lg:grid-cols-5" data-testid="filters">
      {fields.map((k) =>
        // Only reached from a link (a bulk operation's "See its events", an issue's events): shown while set, so it can be cleared.
        LINKED_ONLY.includes(k) ? (
          value[k] ? (
            <Field key={k} label={LABELS[k]}>
              {(p) => <Input {...p} value={value[k] ?? ""} onChange={(e) => set(k, e.target.value.trim())} className="font-mono" data-testid={`filter-${k}`} />}
            </Field>
          ) : null
        ) : k === "created_after" || k === "created_before" ? (
          <Field key={k} label={LABELS[k]}>
            {(p) => <Input {...p} type="datetime-local" value={value[k] ?? ""} onChange={(e) => set(k, e.target.value)} data-testid={`filter-${k}`} />}
          </Field>
        ) : (
          <Field key={k} label={LABELS[k]}>
            {(p) => (
              <Select {...p} value={value[k] ?? ""} onChange={(e) => set(k, e.target.value)} data-testid={`filter-${k}`}>
                <option value="">Any</option>
                {options(k).map((o) => (
                  <option key={o.value} value={o.value}>
                    {o.label}
                  </option>
                ))}
                {value[k] && !options(k).some((o) => o.value === value[k]) && <option value={value[k]}>{value[k]}</option>}
              </Select>
            )}
          </Field>
        ),
      )}
    </div>
  );
}
