"use client";

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { usePathname, useSearchParams } from "next/navigation";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { api, ApiError, qs } from "@/components/dashboard/api";
import {
  explorerListParams,
  explorerListQuery,
  type ExplorerKind,
  SEARCH_FIELDS,
  type Search,
  searchFromParams,
  type SearchKey,
} from "@/components/dashboard/explorer-query";
import { isRecord } from "@/components/ui/api-client";
import { type Filter, FilterControls, filterFromParams, filterToBulkQuery, filterToParams } from "@/components/dashboard/filters";
import { Button, ButtonLink } from "@/components/ui/Button";
import { Card } from "@/components/ui/Card";
import { EmptyState, ErrorMessage } from "@/components/ui/EmptyState";
import { JsonView } from "@/components/ui/JsonView";
import { base64Bytes, BodyView } from "@/components/ui/BodyView";
import { Field, Input } from "@/components/ui/Field";
import { ListWithPanel } from "@/components/ui/SidePanel";
import { PageHeader } from "@/components/ui/PageHeader";
import { type ListColumn, ListTable } from "@/components/ui/ListTable";

/** A bulk family this list can start from its current filter ("Retry all 1,240 matching"). */
type BulkLink = { family: string; path: string; verb: string };

/** How often the first page looks for new rows, ms. */
const LIVE_MS = 3_000;

const SEARCH_LABELS: Record<SearchKey, { label: string; hint: string }> = {
  search_term: { label: "Search", hint: "Text in the body, headers, path or query" },
  path: { label: "Path starts with", hint: "/orders" },
  response_status: { label: "Response status", hint: "500" },
  error_code: { label: "Error code", hint: "TIMEOUT" },
  body: { label: "Body matches (JSON)", hint: '{"type":"order.paid"}' },
  headers: { label: "Headers match (JSON)", hint: '{"x-topic":"order.paid"}' },
  request_id: { label: "Request id", hint: "req_…" },
  event_id: { label: "Event id", hint: "evt_…" },
  transformation_id: { label: "Transformation id", hint: "trs_…" },
};

/**
 * What is wrong with search field `k`'s value, in words a person acts on (shown next to the field, and the
 * value is not searched), or null when it can be searched.
 */
export function searchFieldError(k: SearchKey, v: string | undefined): string | null {
  const t = v?.trim();
  if (!t) return null;
  if (k === "response_status" && !/^[1-5]\d\d$/.test(t)) return "Enter an HTTP status code of three digits, like 500.";
  const json = k === "body" || k === "headers" || (k === "path" && t.startsWith("{"));
  if (!json) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(t);
  } catch {
    return `This is not JSON. Write an object with double quotes, like ${SEARCH_LABELS[k === "path" ? "body" : k].hint}.`;
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed))
    return `Write a JSON object in braces, like ${SEARCH_LABELS[k === "path" ? "body" : k].hint}.`;
  return null;
}

/** The field an API 400 names (`data.field`, e.g. `body` or `created_at`) and its reason, for showing it next to that field; null otherwise. */
export function fieldOfError(error: unknown): { field: string; message: string } | null {
  if (!(error instanceof ApiError) || error.status !== 400) return null;
  const data = isRecord(error.body) && isRecord(error.body.data) ? error.body.data : null;
  if (!data || typeof data.field !== "string") return null;
  return { field: data.field, message: typeof data.message === "string" ? data.message : error.message };
}

/**
 * A list explorer of the gateway API (events, requests, attempts): the list's filters and search fields,
 * keyset paging with the API's cursors, live arrival of new rows on the first page (highlighted), and the
 * selected row's detail beside the list (a full-screen sheet on phones: components/ui/SidePanel.tsx). The
 * filters, the search and the selection (`id`) live in the page's URL, written in place (history.replaceState:
 * no server round trip), so a view can be reloaded, bookmarked and shared. Keyboard: j / k (anywhere but a
 * field) and the arrow keys (in the list) move the selection, Enter opens a row's detail with focus in it,
 * Escape closes it, "/" goes to the search box. With a filter that matches anything, a link to a bulk
 * operation over it with the plan's count (docs/dashboard.md "Requests, events, attempts").
 */
export function Explorer<T extends { id: string }>({
  kind,
  title,
  description,
  path,
  columns,
  detail,
  detailTitle,
  bulk,
  empty,
  include,
  toolbar,
}: {
  kind: ExplorerKind;
  title: string;
  description: string;
  path: string;
  columns: ListColumn<T>[];
  detail: (id: string) => React.ReactNode;
  /** The panel's heading for a selected id. */
  detailTitle: (id: string) => React.ReactNode;
  bulk?: BulkLink;
  empty: React.ReactNode;
  /** `include` of the list call (`data` for the rows' method, path and topic). */
  include?: string;
  /** Controls above the search (the transformation runs' picker of a transformation). */
  toolbar?: React.ReactNode;
}) {
  const params = useSearchParams();
  const pathname = usePathname();
  const urlParams = useMemo(() => new URLSearchParams(params.toString()), [params]);
  const filter = useMemo(() => filterFromParams(urlParams, kind), [urlParams, kind]);
  const search = useMemo(() => searchFromParams(urlParams, kind), [urlParams, kind]);
  const selected = urlParams.get("id");
  const listParams = explorerListParams(filter, search, include);
  const listKey = JSON.stringify(listParams);
  const [cursorState, setCursorState] = useState<{ key: string; next?: string; prev?: string }>({ key: listKey });
  // A cursor belongs to the filter it was given for: another filter starts at the first page.
  const cursor = cursorState.key === listKey ? { next: cursorState.next, prev: cursorState.prev } : {};
  const setCursor = (c: { next?: string; prev?: string }) => setCursorState({ key: listKey, ...c });
  const [focusKey, setFocusKey] = useState<string | null>(null);
  const list = useQuery({
    ...explorerListQuery<T>(path, listParams, cursor),
    placeholderData: keepPreviousData,
    refetchInterval: cursor.next || cursor.prev ? false : LIVE_MS,
  });
  const searching = Object.keys(search).length > 0;
  const bulkQuery = JSON.stringify(filterToBulkQuery(filter));
  const plan = useQuery({
    queryKey: ["plan", bulk?.path, bulkQuery],
    queryFn: () => api<{ estimated_count: number }>(`bulk/${bulk!.path}/plan${qs({ query: bulkQuery })}`),
    // The bulk page takes the list filters, not the search: no count that would not match the list. Asked once
    // the rows are there: a count over a large team is the slowest call of the page and must not delay them.
    enabled: Boolean(bulk) && !searching && Boolean(list.data),
    refetchInterval: 15_000,
  });

  // Rows that arrived after the first answer of the first page are highlighted once.
  // Kept with the answer and cursor they were computed for, and recomputed (during render) when either changes.
  const [highlight, setHighlight] = useState<{ data: unknown; key: string; seen: Set<string> | null; fresh: Set<string> }>({
    data: undefined,
    key: "",
    seen: null,
    fresh: new Set(),
  });
  const highlightKey = `${listKey}|${cursor.next ?? ""}|${cursor.prev ?? ""}`;
  // The first answer of a list (not the previous filter's rows kept on screen meanwhile) is what was there, not new.
  const settled = list.data !== undefined && !list.isPlaceholderData;
  if (highlight.data !== list.data || highlight.key !== highlightKey) {
    const rows = settled ? list.data.models : [];
    const first = highlight.seen === null || highlight.key.split("|")[0] !== listKey;
    const seen = new Set(first ? [] : (highlight.seen ?? []));
    const arrived = first || cursor.next || cursor.prev ? [] : rows.filter((r) => !seen.has(r.id)).map((r) => r.id);
    for (const r of rows) seen.add(r.id);
    setHighlight({ data: list.data, key: highlightKey, seen: settled ? seen : null, fresh: new Set(arrived) });
  }
  const fresh = highlight.fresh;

  /** Writes the URL's parameters in place (Next.js keeps useSearchParams in step with history.replaceState). */
  const writeUrl = useCallback(
    (change: (sp: URLSearchParams) => void) => {
      const sp = new URLSearchParams(window.location.search);
      change(sp);
      window.history.replaceState(null, "", `${pathname}${sp.size ? `?${sp}` : ""}`);
    },
    [pathname],
  );
  function setFilter(f: Filter, s: Search = search) {
    writeUrl((sp) => {
      for (const k of [...Object.keys(filterToParams(filter)), ...Object.keys(search)]) sp.delete(k);
      for (const [k, v] of [...filterToParams(f), ...Object.entries(s)]) if (v) sp.set(k, v);
    });
  }
  const select = useCallback(
    (id: string | null, focus: "panel" | "row" | "none") => {
      writeUrl((sp) => (id ? sp.set("id", id) : sp.delete("id")));
      if (focus === "panel" && id) setFocusKey(`${id}:${Date.now()}`);
      if (focus === "row" && id) {
        const row = document.querySelector<HTMLElement>(`[data-testid="explorer-row"][data-id="${CSS.escape(id)}"]`);
        row?.focus({ preventScroll: true });
        row?.scrollIntoView({ block: "nearest" });
      }
    },
    [writeUrl, setFocusKey],
  );

  const rows = useMemo(() => list.data?.models ?? [], [list.data]);
  // j / k anywhere but in a field, arrows in the list: the next or previous row.
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.defaultPrevented || e.metaKey || e.ctrlKey || e.altKey) return;
      const target = e.target instanceof HTMLElement ? e.target : null;
      const inField = Boolean(target?.closest("input, textarea, select, [contenteditable=true]"));
      const inList = Boolean(target?.closest("[data-testid=explorer-table]"));
      if (e.key === "/" && !inField) {
        e.preventDefault();
        document.querySelector<HTMLElement>('[data-testid="search-search_term"]')?.focus();
        return;
      }
      const delta =
        (!inField && e.key === "j") || (inList && e.key === "ArrowDown") ? 1 : (!inField && e.key === "k") || (inList && e.key === "ArrowUp") ? -1 : 0;
      if (!delta || rows.length === 0) return;
      e.preventDefault();
      const at = rows.findIndex((r) => r.id === selected);
      const next = at === -1 ? (delta > 0 ? 0 : rows.length - 1) : Math.min(rows.length - 1, Math.max(0, at + delta));
      select(rows[next].id, inList || !selected ? "row" : "none");
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [rows, selected, select]);

  const filtered = Object.keys(filter).length > 0 || searching;
  const bulkHref = bulk ? `/dashboard/bulk?${new URLSearchParams({ family: bulk.family, ...Object.fromEntries(filterToParams(filter)) })}` : "";
  // The one row in the Tab order: the selected one, else the first.
  const tabStop = rows.some((r) => r.id === selected) ? selected : rows[0]?.id;

  // A refused filter (a 4xx) is not tried again as it is: its reason goes next to its field, and the way out is clearing it.
  const refused = list.error instanceof ApiError && list.error.status >= 400 && list.error.status < 500 && list.error.status !== 429;
  const fieldError = fieldOfError(list.error);
  const table = list.error ? (
    refused ? (
      <div className="flex flex-col items-start gap-3" data-testid="filter-refused">
        <ErrorMessage
          title="These filters cannot be used"
          error={
            fieldError && fieldError.field in SEARCH_LABELS
              ? `“${labelOfField(fieldError.field)}” cannot be searched: see why next to it, or clear the filters.`
              : fieldError
                ? `${labelOfField(fieldError.field)}: ${fieldError.message}`
                : list.error.message
          }
        />
        <Button onClick={() => setFilter({}, {})}>Clear filters</Button>
      </div>
    ) : (
      <ErrorMessage title={`${title} could not be loaded`} error={list.error} onRetry={() => list.refetch()} />
    )
  ) : !list.data ? (
    <div role="status" className="h-64 animate-pulse rounded-lg bg-zinc-100 dark:bg-zinc-800/60" aria-label="Loading" />
  ) : rows.length === 0 ? (
    <EmptyState
      title={filtered ? `No ${title.toLowerCase()} match these filters` : `No ${title.toLowerCase()} yet`}
      data-testid="empty-state"
      action={filtered ? <Button onClick={() => setFilter({}, {})}>Clear filters</Button> : undefined}
    >
      {filtered ? "Widen the date range, change the search or choose Any for a filter." : empty}
    </EmptyState>
  ) : (
    <Card bodyClassName="p-0">
      <ListTable
        label={`${title}: j and k or the arrow keys move the selection, Enter opens its details`}
        data-testid="explorer-table"
        busy={list.isFetching}
        columns={columns}
        rows={rows}
        rowTestId="explorer-row"
        selectedId={selected}
        tabStopId={tabStop}
        onOpen={(row) => select(row.id, "panel")}
        rowClassName={(row) => (fresh.has(row.id) ? "hy-row-new" : undefined)}
      />
      <div className="flex items-center justify-between gap-2 px-3 py-2 text-xs text-zinc-600 dark:text-zinc-400">
        <span aria-live="polite">
          {rows.length} shown{!cursor.next && !cursor.prev ? " · new rows appear live" : ""}
        </span>
        <div className="flex gap-2">
          <Button size="sm" disabled={!list.data.pagination.prev} onClick={() => setCursor({ prev: list.data.pagination.prev })}>
            Newer
          </Button>
          <Button size="sm" disabled={!list.data.pagination.next} onClick={() => setCursor({ next: list.data.pagination.next })} data-testid="older">
            Older
          </Button>
        </div>
      </div>
    </Card>
  );

  return (
    <>
      <a
        href="#explorer-results"
        onClick={(e) => {
          e.preventDefault();
          document.querySelector<HTMLElement>('[data-testid="explorer-row"][tabindex="0"]')?.focus();
        }}
        className="sr-only rounded-md bg-white px-3 py-2 text-sm focus:not-sr-only focus:absolute focus:z-50 dark:bg-zinc-900"
        data-testid="skip-to-results"
      >
        Skip to results
      </a>
      <PageHeader
        title={title}
        description={description}
        actions={
          bulk && !searching && (plan.data?.estimated_count ?? 0) > 0 ? (
            <ButtonLink href={bulkHref} variant="primary" data-testid="bulk-from-filter">
              {bulk.verb} all {plan.data!.estimated_count.toLocaleString()} matching
            </ButtonLink>
          ) : undefined
        }
      />
      <Card className="mb-4">
        {toolbar}
        <SearchControls kind={kind} value={search} onChange={(s) => setFilter(filter, s)} serverError={fieldError} />
        <FilterControls kind={kind} value={filter} onChange={(f) => setFilter(f)} />
        {filtered && (
          <Button variant="ghost" size="sm" className="mt-3" onClick={() => setFilter({}, {})}>
            Clear filters
          </Button>
        )}
      </Card>
      <div id="explorer-results">
        <ListWithPanel
          list={table}
          panel={selected ? detail(selected) : null}
          title={selected ? detailTitle(selected) : ""}
          focusKey={focusKey}
          onClose={() => {
            const id = selected;
            select(null, "none");
            if (id) requestAnimationFrame(() => document.querySelector<HTMLElement>(`[data-testid="explorer-row"][data-id="${CSS.escape(id)}"]`)?.focus());
          }}
        />
      </div>
    </>
  );
}

/**
 * The search box (`search_term`, applied as you stop typing) and the other search fields of `kind` behind
 * "More search fields" (applied with Enter or on leaving the field).
 */
function SearchControls({
  kind,
  value,
  onChange,
  serverError,
}: {
  kind: ExplorerKind;
  value: Search;
  onChange: (s: Search) => void;
  /** The field the API refused in the URL's search, with its reason. */
  serverError: { field: string; message: string } | null;
}) {
  const fields: readonly SearchKey[] = SEARCH_FIELDS[kind];
  const [draft, setDraft] = useState<{ base: Search; values: Search }>({ base: value, values: value });
  // Fields left (Enter, blur) at least once: their value's problem is shown from then on.
  const [touched, setTouched] = useState<ReadonlySet<SearchKey>>(new Set());
  // The URL changed under the draft (Clear filters, a link): start again from it.
  const current = draft.base === value ? draft.values : value;
  if (draft.base !== value) setDraft({ base: value, values: value });
  const apply = (values: Search) => {
    // A value that cannot be searched stays in its field with its reason; the list keeps its last good search.
    if (fields.some((k) => searchFieldError(k, values[k]))) return;
    const clean = Object.fromEntries(Object.entries(values).filter(([, v]) => v && v.trim())) as Search;
    if (JSON.stringify(clean) !== JSON.stringify(value)) onChange(clean);
  };
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  useEffect(() => () => void (timer.current && clearTimeout(timer.current)), []);
  const set = (k: SearchKey, v: string, now: boolean) => {
    const values = { ...current, [k]: v };
    setDraft({ base: value, values });
    if (timer.current) clearTimeout(timer.current);
    if (now && !touched.has(k)) setTouched(new Set([...touched, k]));
    if (now) apply(values);
    else if (k === "search_term") timer.current = setTimeout(() => apply(values), 400);
  };
  const extra = fields.filter((k) => k !== "search_term");
  const extraSet = extra.some((k) => value[k]);
  const input = (k: SearchKey) => (
    <Field
      key={k}
      label={SEARCH_LABELS[k].label}
      error={(touched.has(k) ? searchFieldError(k, current[k]) : null) ?? (serverError?.field === k && current[k] === value[k] ? serverError.message : null)}
    >
      {(p) => (
        <Input
          {...p}
          type={k === "search_term" ? "search" : "text"}
          inputMode={k === "response_status" ? "numeric" : undefined}
          placeholder={SEARCH_LABELS[k].hint}
          value={current[k] ?? ""}
          onChange={(e) => set(k, e.target.value, false)}
          onKeyDown={(e) => e.key === "Enter" && set(k, e.currentTarget.value, true)}
          onBlur={(e) => set(k, e.target.value, true)}
          className={k === "body" || k === "headers" || k.endsWith("_id") ? "font-mono" : undefined}
          data-testid={`search-${k}`}
        />
      )}
    </Field>
  );
  return (
    <div className="mb-3 flex flex-col gap-3" data-testid="search">
      {fields.includes("search_term") && input("search_term")}
      {extra.length > 0 && (
        <details open={extraSet} className="group">
          <summary className="cursor-pointer text-xs font-medium text-zinc-600 select-none dark:text-zinc-400">More search fields</summary>
          <div className="mt-2 grid grid-cols-1 gap-3 sm:grid-cols-2 lg:grid-cols-3">{extra.map(input)}</div>
        </details>
      )}
    </div>
  );
}

/** The label a person sees for an API parameter named in an error (`created_at` → "Created after / before"). */
function labelOfField(field: string): string {
  if (field in SEARCH_LABELS) return SEARCH_LABELS[field as SearchKey].label;
  const others: Record<string, string> = { created_at: "Created after / before", status: "Status", cause: "Cause", log_level: "Log level" };
  return others[field] ?? field;
}

/** The previewed body of a gateway request or event (docs/gateway-api.md "Requests"): `data` of the record. */
type PreviewedData = { body?: unknown; body_encoding?: "json" | "text" | "base64" | null; is_large_payload?: boolean; headers?: unknown };

/** The value of the `content-type` header in a record's headers (any case), or null. */
function contentTypeOf(headers: unknown): string | null {
  if (!isRecord(headers)) return null;
  const key = Object.keys(headers).find((k) => k.toLowerCase() === "content-type");
  const v = key ? headers[key] : null;
  return typeof v === "string" ? v : Array.isArray(v) && typeof v[0] === "string" ? v[0] : null;
}

/**
 * A body or any JSON value: the kit's body view (components/ui/BodyView.tsx). With `record` (a request's
 * or event's `data`) and `rawPath` (its `…/raw_body` API path) it knows the encoding, says when the
 * preview is cut, previews images, and downloads the exact bytes from the API.
 */
export function BodyText({ value, testId, record, rawPath }: { value: unknown; testId?: string; record?: PreviewedData; rawPath?: string }) {
  const encoding = record?.body_encoding ?? null;
  const contentType = contentTypeOf(record?.headers);
  const raw = useMemo(
    () =>
      rawPath
        ? async () => {
            // raw_body answers UTF-8 text, or base64 when the bytes are not UTF-8 (the preview says which).
            const { body } = await api<{ body: string }>(rawPath);
            return encoding === "base64" ? new Blob([base64Bytes(body).slice().buffer]) : new Blob([body], { type: "text/plain" });
          }
        : undefined,
    [rawPath, encoding],
  );
  if (!record) return <JsonView value={value} testId={testId} />;
  return <BodyView key={rawPath} body={value} encoding={encoding} contentType={contentType} truncated={record.is_large_payload} raw={raw} testId={testId} />;
}
