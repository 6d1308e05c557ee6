"use client";

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useMemo, useState } from "react";
import { api, type Paged, qs } from "@/components/dashboard/api";
import {
  type Filter,
  FilterControls,
  filterFromParams,
  filterToBulkQuery,
  filterToListParams,
  filterToParams,
  type RecordKind,
} from "@/components/dashboard/filters";
import { Button, ButtonLink } from "@/components/ui/Button";
import { Card } from "@/components/ui/Card";
import { EmptyState, ErrorMessage } from "@/components/ui/EmptyState";
import { PageHeader } from "@/components/ui/PageHeader";
import { Table, Td, Th, Tr } from "@/components/ui/Table";

type Column<T> = { header: string; cell: (row: T) => React.ReactNode; className?: string };
/** A bulk family this list can start from its current filter ("Retry all 1,240 matching"). */
type BulkLink = { family: string; path: string; verb: string };

const PAGE_SIZE = 100;
/** How often the first page looks for new rows, ms. */
const LIVE_MS = 3_000;

/**
 * A list explorer of the gateway API (events, requests, attempts): the list's filters (kept in the URL),
 * keyset paging with the API's cursors, live arrival of new rows on the first page (highlighted), a
 * details panel for the selected row, and a link to a bulk operation over the current filter with the
 * plan's count.
 */
export function Explorer<T extends { id: string }>({
  kind,
  title,
  description,
  path,
  columns,
  detail,
  bulk,
  empty,
}: {
  kind: RecordKind;
  title: string;
  description: string;
  path: string;
  columns: Column<T>[];
  detail: (id: string, close: () => void) => React.ReactNode;
  bulk?: BulkLink;
  empty: React.ReactNode;
}) {
  const params = useSearchParams();
  const router = useRouter();
  const pathname = usePathname();
  const filter = useMemo(() => filterFromParams(new URLSearchParams(params.toString()), kind), [params, kind]);
  const [cursor, setCursor] = useState<{ next?: string; prev?: string }>({});
  const [selected, setSelected] = useState<string | null>(params.get("id"));
  const listParams = filterToListParams(filter);
  const list = useQuery({
    queryKey: ["list", path, listParams, cursor],
    queryFn: ({ signal }) => api<Paged<T>>(`${path}${qs({ ...listParams, limit: PAGE_SIZE, ...cursor })}`, { signal }),
    placeholderData: keepPreviousData,
    refetchInterval: cursor.next || cursor.prev ? false : LIVE_MS,
  });
  const bulkQuery = JSON.stringify(filterToBulkQuery(filter));
  const plan = useQuery({
    queryKey: ["plan", bulk?.path, bulkQuery],
    queryFn: () => api<{ estimated_count: number }>(`bulk/${bulk!.path}/plan${qs({ query: bulkQuery })}`),
    enabled: Boolean(bulk),
    refetchInterval: 15_000,
  });

  // Rows that arrived after the first answer of the first page are highlighted once.
  // Kept with the answer and cursor they were computed for, and recomputed (during render) when either changes.
  const [highlight, setHighlight] = useState<{ data: unknown; cursor: unknown; seen: Set<string> | null; fresh: Set<string> }>({
    data: undefined,
    cursor: undefined,
    seen: null,
    fresh: new Set(),
  });
  if (highlight.data !== list.data || highlight.cursor !== cursor) {
    const rows = list.data?.models ?? [];
    const first = highlight.seen === null;
    const seen = new Set(highlight.seen ?? []);
    const arrived = first || cursor.next || cursor.prev ? [] : rows.filter((r) => !seen.has(r.id)).map((r) => r.id);
    for (const r of rows) seen.add(r.id);
    setHighlight({ data: list.data, cursor, seen, fresh: new Set(arrived) });
  }
  const fresh = highlight.fresh;

  function setFilter(f: Filter) {
    setCursor({});
    setHighlight((h) => ({ ...h, seen: null }));
    const sp = filterToParams(f);
    router.replace(`${pathname}${sp.size ? `?${sp}` : ""}`, { scroll: false });
  }

  const rows = list.data?.models ?? [];
  const filtered = Object.keys(filter).length > 0;
  const bulkHref = bulk ? `/dashboard/bulk?${new URLSearchParams({ family: bulk.family, ...Object.fromEntries(filterToParams(filter)) })}` : "";

  return (
    <>
      <PageHeader
        title={title}
        description={description}
        actions={
          bulk && (plan.data?.estimated_count ?? 0) > 0 ? (
            <ButtonLink href={bulkHref} variant="primary" data-testid="bulk-from-filter">
              {bulk.verb} all {plan.data!.estimated_count.toLocaleString()} matching
            </ButtonLink>
          ) : undefined
        }
      />
      <Card className="mb-4">
        <FilterControls kind={kind} value={filter} onChange={setFilter} />
        {filtered && (
          <Button variant="ghost" size="sm" className="mt-3" onClick={() => setFilter({})}>
            Clear filters
          </Button>
        )}
      </Card>
      {list.error ? (
        <ErrorMessage title={`${title} could not be loaded`} error={list.error} onRetry={() => list.refetch()} />
      ) : !list.data ? (
        <div className="h-64 animate-pulse rounded-lg bg-zinc-100 dark:bg-zinc-800/60" aria-label="Loading" />
      ) : rows.length === 0 ? (
        <EmptyState
          title={filtered ? `No ${title.toLowerCase()} match these filters` : `No ${title.toLowerCase()} yet`}
          data-testid="empty-state"
          action={filtered ? <Button onClick={() => setFilter({})}>Clear filters</Button> : undefined}
        >
          {filtered ? "Widen the date range or choose Any for a filter." : empty}
        </EmptyState>
      ) : (
        <Card bodyClassName="p-0">
          <Table caption={title} data-testid="explorer-table" aria-busy={list.isFetching}>
            <thead>
              <tr>
                {columns.map((c) => (
                  <Th key={c.header} className={c.className}>
                    {c.header}
                  </Th>
                ))}
              </tr>
            </thead>
            <tbody>
              {rows.map((row) => (
                <Tr
                  key={row.id}
                  data-testid="explorer-row"
                  data-id={row.id}
                  selected={row.id === selected}
                  onOpen={() => setSelected(row.id)}
                  className={fresh.has(row.id) ? "hy-row-new" : undefined}
                >
                  {columns.map((c) => (
                    <Td key={c.header} className={c.className}>
                      {c.cell(row)}
                    </Td>
                  ))}
                </Tr>
              ))}
            </tbody>
          </Table>
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
      )}
      {selected && <div className="mt-4">{detail(selected, () => setSelected(null))}</div>}
    </>
  );
}

/** A body or any JSON value as text (never interpreted as markup). */
export function BodyText({ value, testId }: { value: unknown; testId?: string }) {
  const text = value === null || value === undefined ? "" : typeof value === "string" ? value : JSON.stringify(value, null, 2);
  if (!text) return <p className="text-sm text-zinc-600 dark:text-zinc-400">No body.</p>;
  return (
    <pre
      data-testid={testId}
      className="max-h-96 overflow-auto rounded-md bg-zinc-50 p-3 font-mono text-xs whitespace-pre-wrap text-zinc-900 [overflow-wrap:anywhere] dark:bg-zinc-900 dark:text-zinc-100"
    >
      {text}
    </pre>
  );
}
