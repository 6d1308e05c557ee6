"use client";

import type { UseQueryResult } from "@tanstack/react-query";
import Link from "next/link";
import type { GatewayEvent } from "@/components/dashboard/api";
import { when } from "@/components/dashboard/forms";
import { StatusBadge } from "@/components/ui/Badge";
import { Button } from "@/components/ui/Button";
import { useConfirm } from "@/components/ui/ConfirmDialog";
import { ErrorMessage } from "@/components/ui/EmptyState";
import { Table, Td, Th } from "@/components/ui/Table";
import { cx } from "@/components/ui/cx";

/**
 * The three states of a list query in one place: an error with the API's message and a retry, a loading
 * placeholder of `height`, `empty` when `isEmpty(data)`, else `children(data)`. `inset` pads the error,
 * placeholder and empty state for a card whose body has no padding (a table card).
 */
export function QueryView<T>({
  query,
  what,
  isEmpty,
  empty,
  inset = false,
  height = "h-16",
  children,
}: {
  query: UseQueryResult<T>;
  what: string;
  isEmpty: (data: T) => boolean;
  empty: React.ReactNode;
  inset?: boolean;
  height?: string;
  children: (data: T) => React.ReactNode;
}) {
  const pad = inset ? "p-4" : undefined;
  if (query.error)
    return (
      <div className={pad}>
        <ErrorMessage title={`${what} could not be loaded`} error={query.error} onRetry={() => query.refetch()} />
      </div>
    );
  if (query.data === undefined)
    return (
      <div className={pad}>
        <div role="status" className={cx(height, "animate-pulse rounded-lg bg-zinc-100 dark:bg-zinc-800/60")} aria-label="Loading" />
      </div>
    );
  if (isEmpty(query.data)) return <div className={pad}>{empty}</div>;
  return <>{children(query.data)}</>;
}

/** Gateway events as a table: id (opens it in the Events explorer), status, response, attempts, created. `testId` names the rows. */
export function EventsTable({ events, caption, testId }: { events: GatewayEvent[]; caption: string; testId: string }) {
  return (
    <Table caption={caption}>
      <thead>
        <tr>
          <Th>Event</Th>
          <Th>Status</Th>
          <Th>Response</Th>
          <Th>Attempts</Th>
          <Th>Created</Th>
        </tr>
      </thead>
      <tbody>
        {events.map((e) => (
          <tr key={e.id} data-testid={testId} data-status={e.status}>
            <Td>
              <Link className="font-mono text-xs text-indigo-700 hover:underline dark:text-indigo-300" href={`/dashboard/events?id=${e.id}`}>
                {e.id}
              </Link>
            </Td>
            <Td>
              <StatusBadge status={e.status} />
            </Td>
            <Td className="text-xs">{e.response_status ?? e.error_code ?? "—"}</Td>
            <Td className="text-xs">{e.attempts}</Td>
            <Td className="whitespace-nowrap text-xs">{when(e.created_at)}</Td>
          </tr>
        ))}
      </tbody>
    </Table>
  );
}

/** Enable/Disable and Delete (after a confirmation naming `label`) of a table row. */
export function EnableDeleteActions({
  disabled,
  busy,
  label,
  onToggle,
  onDelete,
}: {
  disabled: boolean;
  busy: boolean;
  label: string;
  onToggle: () => void;
  onDelete: () => void;
}) {
  const { dialog, confirm } = useConfirm();
  return (
    <div className="flex justify-end gap-1.5">
      {dialog}
      <Button size="sm" disabled={busy} onClick={onToggle} aria-label={`${disabled ? "Enable" : "Disable"} ${label}`}>
        {disabled ? "Enable" : "Disable"}
      </Button>
      <Button
        size="sm"
        variant="ghost"
        disabled={busy}
        onClick={() => confirm({ title: `Delete ${label}?`, confirmLabel: "Delete", onConfirm: onDelete })}
        aria-label={`Delete ${label}`}
      >
        Delete
      </Button>
    </div>
  );
}
