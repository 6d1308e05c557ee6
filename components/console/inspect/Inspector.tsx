"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useCallback, useEffect, useRef, useState } from "react";
import type { TCapturedRequest, TSourcePreview } from "@/lib/console/schemas";
import { ApiError, type ConsoleSource, fetchPreview } from "@/components/console/api";
import { CopyButton } from "@/components/ui/CopyButton";
import { NewTestUrlButton } from "@/components/console/CreateTestUrl";
import { ChevronDownIcon, TerminalIcon } from "@/components/ui/icons";
import { buttonClasses } from "@/components/ui/Button";
import { Logo } from "@/components/ui/Logo";
import { Tag } from "@/components/console/inspect/badges";
import { ManageTestUrl } from "@/components/console/inspect/ManageTestUrl";
import { filledCmdHint } from "@/components/console/format";
import { Notice } from "@/components/ui/Notice";
import { EmptyState } from "@/components/console/inspect/EmptyState";
import { LiveIndicator, type LiveState } from "@/components/console/inspect/LiveIndicator";
import { RequestDetail } from "@/components/console/inspect/RequestDetail";
import { RequestList, requestKey } from "@/components/console/inspect/RequestList";
import { SourcesNav } from "@/components/console/inspect/SourcesNav";

type InspectorProps = {
  /** The source id without `src_`. */
  publicId: string;
  /** The preview as rendered on the server. */
  initial: TSourcePreview;
  /** When `initial` was read (ms). */
  initialAt: number;
  /** Display name of the source type. */
  typeLabel: string;
  /** The CLI hint; only given to the source's owner (the visitor whose session cookie is its workspace's). */
  cmdHint: string | null;
  /** The visitor's own sources (empty when the visitor has no workspace). */
  sources: ConsoleSource[];
};

/** The new request a live `request` event carries, or null when it carries none (then the list is read again). */
function rowOf(data: unknown): TCapturedRequest | null {
  try {
    const parsed = JSON.parse(String(data)) as { request?: TCapturedRequest };
    return parsed.request && typeof parsed.request.id === "string" ? parsed.request : null;
  } catch {
    return null;
  }
}

/**
 * Live updates from `GET /{id}/live` (server-sent `request` events). EventSource reconnects by
 * itself after network errors; when the server ends the stream for good we reconnect with backoff.
 * An event that carries its request goes to `onRow` (nothing is fetched: docs/console.md "Live updates");
 * `onChange` runs for an event without one and after every (re)connect, since events may have been missed.
 */
function useLiveUpdates(publicId: string, onChange: () => void, onRow: (row: TCapturedRequest) => void): LiveState {
  const [state, setState] = useState<LiveState>("connecting");
  const onChangeRef = useRef(onChange);
  const onRowRef = useRef(onRow);
  useEffect(() => {
    onChangeRef.current = onChange;
    onRowRef.current = onRow;
  }, [onChange, onRow]);

  useEffect(() => {
    if (typeof EventSource === "undefined") {
      // eslint-disable-next-line react-hooks/set-state-in-effect -- whether the browser has EventSource is known only after hydration
      setState("offline");
      return;
    }
    let es: EventSource | null = null;
    let retry: ReturnType<typeof setTimeout> | null = null;
    let failures = 0;
    let disposed = false;

    const connect = () => {
      if (disposed) return;
      const source = new EventSource(`/${encodeURIComponent(publicId)}/live`);
      es = source;
      source.addEventListener("open", () => {
        failures = 0;
        setState("live");
        onChangeRef.current();
      });
      source.addEventListener("request", (e) => {
        const row = rowOf(e.data);
        if (row) onRowRef.current(row);
        else onChangeRef.current();
      });
      source.addEventListener("error", () => {
        if (disposed || es !== source) return;
        if (source.readyState === EventSource.CLOSED) {
          // The browser gave up (e.g. a non-stream answer): try again ourselves, backing off.
          source.close();
          failures += 1;
          setState(failures > 3 ? "offline" : "reconnecting");
          retry = setTimeout(connect, Math.min(30_000, 1000 * 2 ** Math.min(failures, 5)));
        } else {
          setState("reconnecting");
        }
      });
    };
    // The browser knows when the network is gone before the stream notices: say so at once, reconnect when back.
    const onOffline = () => {
      es?.close();
      es = null;
      setState("offline");
    };
    const onOnline = () => {
      if (retry) clearTimeout(retry);
      failures = 0;
      setState("connecting");
      connect();
    };
    window.addEventListener("offline", onOffline);
    window.addEventListener("online", onOnline);
    connect();
    return () => {
      window.removeEventListener("offline", onOffline);
      window.removeEventListener("online", onOnline);
      disposed = true;
      if (retry) clearTimeout(retry);
      es?.close();
    };
  }, [publicId]);

  return state;
}

/** Coalesces bursts of change notifications into sequential refetches (never starving one with the next). */
function useCoalescedRefetch(publicId: string) {
  const queryClient = useQueryClient();
  const running = useRef(false);
  const dirty = useRef(false);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);

  useEffect(
    () => () => {
      if (timer.current) clearTimeout(timer.current);
    },
    [],
  );

  return useCallback(() => {
    dirty.current = true;
    if (running.current || timer.current) return;
    const refresh = async () => {
      timer.current = null;
      running.current = true;
      try {
        while (dirty.current) {
          dirty.current = false;
          await queryClient.refetchQueries({ queryKey: ["preview", publicId], exact: true });
        }
      } finally {
        running.current = false;
      }
    };
    // refetchQueries does not reject (the query's state holds its error): fire-and-forget.
    timer.current = setTimeout(() => void refresh(), 60);
  }, [queryClient, publicId]);
}

/**
 * Rows that do not move under the visitor: while the pointer or focus is in the list, the rows shown are
 * frozen and newer arrivals are only counted (docs/console.md "Live updates"). `showNew` reveals them
 * (the list stays paused); leaving the list shows everything again. Older rows loaded meanwhile ("Load older
 * requests") are added below at once: they move nothing. `live` false (search results) shows `requests` as they are.
 */
function usePausableRows(requests: TCapturedRequest[], live = true) {
  const [frozen, setFrozen] = useState<TCapturedRequest[] | null>(null);
  const inside = useRef({ pointer: false, focus: false });
  const update = (part: "pointer" | "focus", value: boolean) => {
    inside.current[part] = value;
    const paused = inside.current.pointer || inside.current.focus;
    setFrozen((f) => (paused && live ? (f ?? requests) : null));
  };
  const held = live ? frozen : null;
  let rows = requests;
  let newCount = 0;
  if (held) {
    // The frozen rows, then whatever follows the last of them now (older pages).
    const last = held.at(-1)?.id;
    const after = last === undefined ? -1 : requests.findIndex((r) => r.id === last);
    const kept = new Set(held.map(requestKey));
    rows = after === -1 ? held : [...held, ...requests.slice(after + 1).filter((r) => !kept.has(requestKey(r, 0)))];
    const shown = new Set(rows.map(requestKey));
    newCount = requests.filter((r, i) => !shown.has(requestKey(r, i))).length;
  }
  const handlers = {
    onPointerEnter: () => update("pointer", true),
    onPointerLeave: () => update("pointer", false),
    onFocus: () => update("focus", true),
    onBlur: (e: React.FocusEvent<HTMLElement>) => {
      if (!e.currentTarget.contains(e.relatedTarget)) update("focus", false);
    },
  };
  return { rows, paused: held !== null, newCount, showNew: () => setFrozen(requests), handlers };
}

function isTypingTarget(t: EventTarget | null): boolean {
  return t instanceof HTMLElement && (t.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(t.tagName));
}

/** `rows` with `row` in its place (newest first by `received_at`), or `rows` itself when it is there already. */
function withRow(rows: TCapturedRequest[], row: TCapturedRequest): TCapturedRequest[] {
  if (rows.some((r) => r.id === row.id)) return rows;
  const at = rows.findIndex((r) => (r.received_at ?? "") <= (row.received_at ?? ""));
  return at === -1 ? [...rows, row] : [...rows.slice(0, at), row, ...rows.slice(at)];
}

/** Requests of one page of the preview (the server's page size). */
const PAGE_SIZE = 100;

/**
 * Older pages of the list (`GET /{id}?before=`): `after` is the id of the newest page's last row they continue
 * from; when the newest page is read again and ends elsewhere, they no longer follow it and are dropped.
 */
type OlderPages = { after: string; rows: TCapturedRequest[]; done: boolean };

function useOlderPages(publicId: string, newest: TCapturedRequest[]) {
  const [older, setOlder] = useState<OlderPages | null>(null);
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const last = newest.at(-1)?.id ?? null;
  const current = older && older.after === last ? older : null;
  const shown = new Set(newest.map((r) => r.id));
  const rows = current ? [...newest, ...current.rows.filter((r) => !shown.has(r.id))] : newest;
  const done = current ? current.done : newest.length < PAGE_SIZE;
  const loadMore = async () => {
    const cursor = rows.at(-1)?.id;
    if (!cursor || !last || loading) return;
    setLoading(true);
    setError(null);
    try {
      const page = (await fetchPreview(publicId, undefined, { before: cursor })).requests;
      setOlder({ after: last, rows: [...(current?.rows ?? []), ...page], done: page.length < PAGE_SIZE });
    } catch (err) {
      setError(err instanceof Error ? err.message : "Could not load older requests.");
    } finally {
      setLoading(false);
    }
  };
  return { rows, done, loading, error, loadMore };
}

/** Search within the test URL (`GET /{id}?q=`): `q` is the submitted text, null when not searching. */
function useSearch(publicId: string) {
  const [q, setQ] = useState<string | null>(null);
  const results = useQuery({
    queryKey: ["preview", publicId, "search", q],
    queryFn: ({ signal }) => fetchPreview(publicId, signal, { q: q ?? "" }),
    enabled: q !== null,
    retry: false,
  });
  return { q, setQ, results };
}

export function Inspector({ publicId, initial, initialAt, typeLabel, cmdHint, sources }: InspectorProps) {
  const refetch = useCoalescedRefetch(publicId);
  const queryClient = useQueryClient();
  // The latest rows that came live, numbered: a read of the list that was under way when one came may
  // have been answered before it was committed, and must not take it off the page (see the query below).
  const liveRows = useRef<{ n: number; rows: TCapturedRequest[] }>({ n: 0, rows: [] });
  const addRow = useCallback(
    (row: TCapturedRequest) => {
      const seen = liveRows.current;
      seen.n += 1;
      seen.rows = [...seen.rows.slice(-(PAGE_SIZE - 1)), row];
      queryClient.setQueryData<TSourcePreview>(["preview", publicId], (p) => (p ? { ...p, requests: withRow(p.requests, row) } : p));
    },
    [queryClient, publicId],
  );
  const live = useLiveUpdates(publicId, refetch, addRow);

  const query = useQuery({
    queryKey: ["preview", publicId],
    queryFn: async ({ signal }) => {
      const before = liveRows.current.n;
      const preview = await fetchPreview(publicId, signal);
      // Rows that came live while this read was under way: kept, in their place (withRow skips those it has).
      const came = Math.min(liveRows.current.n - before, liveRows.current.rows.length);
      const missed = came > 0 ? liveRows.current.rows.slice(-came) : [];
      return missed.length ? { ...preview, requests: missed.reduce(withRow, preview.requests) } : preview;
    },
    initialData: initial,
    initialDataUpdatedAt: initialAt,
    staleTime: 2_000,
    // Without the live stream, fall back to polling; with it, events bring every new request (no refetch on focus either).
    refetchInterval: live === "live" ? false : 5_000,
    refetchOnWindowFocus: live !== "live",
    retry: (count, err) => !(err instanceof ApiError && err.status === 404) && count < 2,
  });
  const preview = query.data;
  const older = useOlderPages(publicId, preview.requests);
  const search = useSearch(publicId);
  const [searchText, setSearchText] = useState("");
  const listed = search.q !== null ? (search.results.data?.requests ?? []) : older.rows;
  const allRequests = preview.requests;
  const { rows: requests, paused, newCount, showNew, handlers: pauseHandlers } = usePausableRows(listed, search.q === null);
  const [port, setPort] = useState("3000");
  const hint = cmdHint ? filledCmdHint(cmdHint, preview.name, port) : null;
  const onRenamed = (name: string) => queryClient.setQueryData<TSourcePreview>(["preview", publicId], (p) => (p ? { ...p, name } : p));

  // Rows that arrive after load get a short highlight.
  const [initialKeys] = useState(() => new Set(initial.requests.map(requestKey)));
  const freshKeys = new Set(allRequests.map(requestKey).filter((k) => !initialKeys.has(k)));

  // The newest request is selected by default; after that the selection stays put as requests arrive.
  const [selectedKey, setSelectedKey] = useState<string | null>(requests[0] ? requestKey(requests[0], 0) : null);
  if (selectedKey === null && requests.length > 0) setSelectedKey(requestKey(requests[0], 0));
  const selectedIndex = Math.max(
    0,
    requests.findIndex((r, i) => requestKey(r, i) === selectedKey),
  );
  const selected = requests[selectedIndex] ?? null;

  const detailRef = useRef<HTMLDivElement>(null);
  const select = useCallback((key: string, reveal: boolean) => {
    setSelectedKey(key);
    if (reveal && window.matchMedia("(max-width: 1023px)").matches) {
      requestAnimationFrame(() => detailRef.current?.scrollIntoView({ behavior: "smooth", block: "start" }));
    }
  }, []);

  // j/k or arrow keys move through the list.
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.metaKey || e.ctrlKey || e.altKey || isTypingTarget(e.target) || requests.length === 0) return;
      const down = e.key === "j" || e.key === "ArrowDown";
      const up = e.key === "k" || e.key === "ArrowUp";
      if (!down && !up) return;
      const next = Math.min(requests.length - 1, Math.max(0, selectedIndex + (down ? 1 : -1)));
      if (next === selectedIndex) return;
      e.preventDefault();
      const key = requestKey(requests[next], next);
      setSelectedKey(key);
      document
        .querySelector<HTMLElement>(`[data-testid="request-row"][data-request-id="${CSS.escape(requests[next].id ?? "")}"]`)
        ?.scrollIntoView({ block: "nearest" });
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [requests, selectedIndex]);

  const gone = query.error instanceof ApiError && query.error.status === 404;

  return (
    <div className="flex min-h-dvh flex-col lg:h-dvh lg:min-h-0">
      {/* Top bar */}
      <header className="sticky top-0 z-20 flex h-14 shrink-0 items-center gap-3 border-b border-zinc-200 bg-white/85 px-4 backdrop-blur dark:border-zinc-800 dark:bg-zinc-950/85">
        <Logo />
        <div className="ml-auto flex items-center gap-2">
          <LiveIndicator state={live} />
          {sources.length > 0 && (
            <details className="group relative xl:hidden">
              <summary className={buttonClasses("ghost", "sm", "cursor-pointer list-none sm:h-9 sm:px-3.5 sm:text-sm [&::-webkit-details-marker]:hidden")}>
                <span className="hidden sm:inline">Your URLs</span>
                <span className="sm:hidden">URLs</span>
                <span className="text-zinc-600 tabular-nums dark:text-zinc-400">{sources.length}</span>
                <ChevronDownIcon className="size-4 transition group-open:rotate-180" />
              </summary>
              <div className="absolute right-0 z-30 mt-2 max-h-[70vh] w-72 overflow-auto rounded-xl border border-zinc-200 bg-zinc-50 p-2 shadow-xl dark:border-zinc-800 dark:bg-zinc-900">
                <SourcesNav sources={sources} currentId={publicId} currentCount={requests.length} />
              </div>
            </details>
          )}
          <NewTestUrlButton />
        </div>
      </header>

      <div className="flex min-h-0 flex-1">
        {/* Workspace sidebar (wide screens) */}
        {sources.length > 0 && (
          <aside className="hidden w-64 shrink-0 flex-col border-r border-zinc-200 bg-zinc-50/60 xl:flex dark:border-zinc-800 dark:bg-zinc-900/30">
            <h2 className="px-4 pt-4 pb-2 text-[11px] font-semibold tracking-wide text-zinc-600 uppercase dark:text-zinc-400">Your test URLs</h2>
            <nav className="min-h-0 flex-1 overflow-y-auto px-2 pb-4" aria-label="Your test URLs">
              <SourcesNav sources={sources} currentId={publicId} currentCount={requests.length} />
            </nav>
          </aside>
        )}

        <main className="flex min-w-0 flex-1 flex-col">
          {/* Source header */}
          <section className="shrink-0 space-y-3 border-b border-zinc-200 px-4 py-4 sm:px-6 dark:border-zinc-800" aria-label="Test URL">
            <div className="flex min-w-0 flex-wrap items-center gap-2">
              <h1 data-testid="source-name" className="min-w-0 truncate text-lg font-semibold tracking-tight text-zinc-900 dark:text-zinc-50">
                {preview.name}
              </h1>
              <Tag>
                <span data-testid="source-type" title={preview.type}>
                  {typeLabel}
                </span>
              </Tag>
              {!cmdHint && <Tag tone="info">Shared with you</Tag>}
              {cmdHint && <ManageTestUrl key={preview.name} publicId={publicId} name={preview.name} onRenamed={onRenamed} />}
              <span className="ml-auto text-xs text-zinc-600 tabular-nums dark:text-zinc-400">
                {older.rows.length} {older.rows.length === 1 ? "request" : "requests"}
                {!older.done && ` (latest ${older.rows.length})`}
              </span>
            </div>
            <div className="grid max-w-5xl gap-2">
              <div className="flex min-w-0 items-center gap-2 rounded-lg border border-zinc-200 bg-zinc-50 py-1 pr-1 pl-3 dark:border-zinc-800 dark:bg-zinc-900">
                <span className="shrink-0 text-[11px] font-semibold tracking-wide text-zinc-600 uppercase dark:text-zinc-400">Ingest URL</span>
                <code
                  data-testid="ingest-url"
                  className="min-w-0 flex-1 truncate font-mono text-xs text-zinc-900 select-all sm:text-sm dark:text-zinc-100"
                  title={preview.ingest_url}
                >
                  {preview.ingest_url}
                </code>
                <CopyButton value={preview.ingest_url} label="Copy" title="Copy ingest URL" data-testid="copy-ingest-url" />
              </div>
              {hint && (
                <div className="flex min-w-0 flex-wrap items-start gap-x-2 gap-y-1 rounded-lg border border-zinc-200 bg-zinc-50 py-1 pr-1 pl-3 dark:border-zinc-800 dark:bg-zinc-900">
                  <div className="flex min-w-0 flex-[1_1_18rem] items-start gap-2">
                    <TerminalIcon className="mt-1.5 size-4 shrink-0 text-zinc-600 dark:text-zinc-400" />
                    <code
                      data-testid="cmd-hint"
                      className="min-w-0 flex-1 py-1 font-mono text-xs whitespace-pre-wrap text-zinc-900 select-all [overflow-wrap:anywhere] dark:text-zinc-100"
                      title="Forward requests to your machine with the command-line tool"
                    >
                      {hint}
                    </code>
                  </div>
                  <div className="ml-auto flex shrink-0 items-center gap-2">
                    <label className="flex items-center gap-1 text-[11px] font-semibold tracking-wide text-zinc-600 uppercase dark:text-zinc-400">
                      Port
                      <input
                        data-testid="cmd-hint-port"
                        inputMode="numeric"
                        value={port}
                        onChange={(e) => setPort(e.target.value.replace(/[^0-9]/g, "").slice(0, 5))}
                        className="h-7 w-16 rounded-md border border-zinc-300 bg-white px-1.5 font-mono text-xs text-zinc-900 dark:border-zinc-700 dark:bg-zinc-950 dark:text-zinc-100"
                      />
                    </label>
                    <CopyButton value={hint} label="Copy" title="Copy CLI command" data-testid="copy-cmd-hint" />
                  </div>
                </div>
              )}
            </div>
          </section>

          {(gone || (query.isError && !query.isFetching)) && (
            <div
              role="alert"
              className="border-b border-amber-200 bg-amber-50 px-6 py-2 text-sm text-amber-900 dark:border-amber-500/20 dark:bg-amber-500/10 dark:text-amber-200"
            >
              {query.error instanceof Error ? query.error.message : "Could not refresh the requests."} Showing the last known requests.
            </div>
          )}

          {live === "offline" && (
            <Notice tone="info" role="status" className="mx-4 mt-3 sm:mx-6" data-testid="live-offline">
              Live updates stopped (offline). New requests appear when the connection is back; the page checks every few seconds.
            </Notice>
          )}

          {allRequests.length === 0 ? (
            <div className="min-h-0 flex-1 overflow-y-auto">
              <EmptyState ingestUrl={preview.ingest_url} />
            </div>
          ) : (
            <div className="flex min-h-0 flex-1 flex-col lg:flex-row">
              <section
                aria-label="Requests"
                data-paused={paused ? "true" : undefined}
                {...pauseHandlers}
                className="max-h-[45vh] shrink-0 overflow-y-auto border-b border-zinc-200 lg:max-h-none lg:w-96 lg:border-r lg:border-b-0 dark:border-zinc-800"
              >
                {/* Zero height: the pill floats over the list, so announcing arrivals moves no row either. */}
                <div className="sticky top-0 z-10 flex h-0 justify-center overflow-visible" aria-live="polite">
                  {newCount > 0 && (
                    <button
                      type="button"
                      data-testid="show-new-requests"
                      onClick={showNew}
                      className="mt-2 h-7 shrink-0 rounded-full bg-indigo-700 px-3 text-xs font-medium text-white shadow-md hover:bg-indigo-800 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-[var(--hy-focus)] dark:bg-indigo-300 dark:text-zinc-950 dark:hover:bg-indigo-200"
                    >
                      {newCount} new — show
                    </button>
                  )}
                </div>
                <form
                  role="search"
                  className="flex items-center gap-2 border-b border-zinc-200 px-3 py-2 dark:border-zinc-800"
                  onSubmit={(e) => {
                    e.preventDefault();
                    const text = searchText.trim();
                    search.setQ(text ? text : null);
                  }}
                >
                  <input
                    type="search"
                    data-testid="request-search"
                    aria-label="Search requests of this test URL"
                    placeholder="Search path, headers, body…"
                    maxLength={200}
                    value={searchText}
                    onChange={(e) => {
                      setSearchText(e.target.value);
                      if (!e.target.value) search.setQ(null);
                    }}
                    className="h-8 min-w-0 flex-1 rounded-md border border-zinc-300 bg-white px-2 text-sm text-zinc-900 dark:border-zinc-700 dark:bg-zinc-950 dark:text-zinc-100"
                  />
                  <button type="submit" className={buttonClasses("secondary", "sm")}>
                    Search
                  </button>
                </form>
                {search.q !== null && (
                  <p data-testid="search-status" role="status" className="px-4 py-2 text-xs text-zinc-600 dark:text-zinc-400">
                    {search.results.isFetching
                      ? "Searching…"
                      : search.results.isError
                        ? search.results.error instanceof Error
                          ? search.results.error.message
                          : "Search failed."
                        : `${requests.length}${requests.length >= PAGE_SIZE ? "+" : ""} matching “${search.q}”`}
                  </p>
                )}
                <RequestList
                  requests={requests}
                  selectedKey={selected ? requestKey(selected, selectedIndex) : null}
                  onSelect={(k) => select(k, true)}
                  freshKeys={freshKeys}
                />
                {search.q === null && !older.done && (
                  <div className="flex flex-col items-center gap-1 px-4 py-3">
                    <button
                      type="button"
                      data-testid="load-older-requests"
                      disabled={older.loading}
                      onClick={() => void older.loadMore()}
                      className={buttonClasses("secondary", "sm")}
                    >
                      {older.loading ? "Loading…" : "Load older requests"}
                    </button>
                    {older.error && (
                      <span role="alert" className="text-xs text-red-700 dark:text-red-400">
                        {older.error}
                      </span>
                    )}
                  </div>
                )}
              </section>
              <section
                ref={detailRef}
                aria-label="Request details"
                className="min-w-0 flex-1 scroll-mt-14 overflow-y-auto bg-zinc-50/50 p-4 sm:p-6 dark:bg-zinc-950"
              >
                {selected && <RequestDetail key={selected.id} publicId={publicId} request={selected} owner={cmdHint !== null} />}
              </section>
            </div>
          )}
        </main>
      </div>
    </div>
  );
}
