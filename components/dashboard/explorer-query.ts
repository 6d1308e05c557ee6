import type { QueryClient } from "@tanstack/react-query";
import { api, type Paged, qs } from "@/components/dashboard/api";
import { type Filter, filterFromParams, filterToListParams } from "@/components/dashboard/filters";

/**
 * The list call of the dashboard's explorers, shared by the explorer (components/dashboard/Explorer.tsx) and the
 * navigation, which starts it when the pointer or focus reaches an explorer's link, so the rows are on their way
 * while the page mounts (docs/dashboard.md "Requests, events, attempts").
 */

/** Rows per page of an explorer. */
export const PAGE_SIZE = 100;

/** The search fields of each explorer (list endpoint parameters, kept in the URL under the same names). */
export const SEARCH_FIELDS = {
  events: ["search_term", "path", "response_status", "error_code", "body", "headers", "request_id"],
  requests: ["search_term", "path", "body", "headers"],
  attempts: ["event_id"],
  "ignored-events": ["request_id", "transformation_id"],
  executions: [],
} as const;
export type SearchKey = (typeof SEARCH_FIELDS)[keyof typeof SEARCH_FIELDS][number];
export type ExplorerKind = keyof typeof SEARCH_FIELDS;
export type Search = Partial<Record<SearchKey, string>>;

/** The explorers the navigation links to, by page path: their kind, list endpoint and `include`. */
export const EXPLORER_PAGES: Record<string, { kind: ExplorerKind; path: string; include?: string }> = {
  "/dashboard/events": { kind: "events", path: "events", include: "data" },
  "/dashboard/requests": { kind: "requests", path: "requests", include: "data" },
  "/dashboard/attempts": { kind: "attempts", path: "attempts" },
};

/** The search fields of `kind` in `params`. */
export function searchFromParams(params: URLSearchParams, kind: ExplorerKind): Search {
  const s: Search = {};
  for (const k of SEARCH_FIELDS[kind]) {
    const v = params.get(k);
    if (v) s[k] = v;
  }
  return s;
}

/** The list endpoint's parameters of the search fields: a path is a prefix (`{"$startsWith": …}`) unless given as JSON. */
function searchToListParams(s: Search): Record<string, string | undefined> {
  const { path, ...rest } = s;
  return { ...rest, path: path ? (path.trim().startsWith("{") ? path : JSON.stringify({ $startsWith: path })) : undefined };
}

/** The list call's parameters (without `limit` and the cursor) of a filter, a search and an `include`. */
export function explorerListParams(filter: Filter, search: Search, include: string | undefined): Record<string, string | undefined> {
  return { ...filterToListParams(filter), ...searchToListParams(search), include };
}

/** TanStack Query options (key and fetch) of one page of an explorer's list: `path` is the endpoint (`events`), `cursor` the API's. */
export function explorerListQuery<T>(path: string, listParams: Record<string, string | undefined>, cursor: { next?: string; prev?: string }) {
  return {
    queryKey: ["list", path, listParams, cursor] as const,
    queryFn: ({ signal }: { signal: AbortSignal }) => api<Paged<T>>(`${path}${qs({ ...listParams, limit: PAGE_SIZE, ...cursor })}`, { signal }),
  };
}

/**
 * Starts the first page of the explorer at `href` (a dashboard path with its query, e.g. `/dashboard/events?status=FAILED`)
 * into `client`'s cache, unless a fresh one is there; does nothing for another page. Errors are left to the page's own call.
 */
export function prefetchExplorer(client: QueryClient, href: string): void {
  const url = new URL(href, "http://x");
  const page = EXPLORER_PAGES[url.pathname];
  if (!page) return;
  const listParams = explorerListParams(filterFromParams(url.searchParams, page.kind), searchFromParams(url.searchParams, page.kind), page.include);
  void client.prefetchQuery({ ...explorerListQuery(page.path, listParams, {}), staleTime: 2_000 });
}
