"use client";

import { useState } from "react";
import { Button } from "@/components/ui/Button";
import { useConfirm } from "@/components/ui/ConfirmDialog";
import { IdLink } from "@/components/ui/IdLink";
import { Notice } from "@/components/ui/Notice";
import { Table, Td, Th } from "@/components/ui/Table";
import { RelativeTime } from "@/components/ui/Time";

/** One entry of a destination's `ordering.blocked_keys` (docs/gateway-api.md "Ordered delivery"). */
export type BlockedKey = { key: string; event_id: string; blocked_at: string };

/** How a key shows: the empty key `""` is the whole destination's one sequence (or events without the key's value). */
const keyText = (key: string) => (key === "" ? "(empty key)" : key);
/** A blocked entry's identity: a key blocked again later has another blocking event, so it shows again. */
const entryId = (b: BlockedKey) => `${b.key}\u0000${b.event_id}`;

/**
 * The blocked keys of an ordered destination with `on_exhausted: "block"` (docs/pipeline.md "Ordered
 * delivery"): per key its blocking event (a link through `eventHref`, plain text without it) and since
 * when it blocks, a Release button per key and Release all (after a styled confirmation).
 *
 * `onRelease(keys)` releases the given keys, or every key when `keys` is undefined; its promise's
 * rejection (an Error's message) shows above the table. Entries it released disappear at once, without
 * waiting for the caller's next read (an entry with another blocking event, blocked again later, shows
 * again). `busy` disables the buttons (e.g. while the caller saves or reloads). Product-free: the caller
 * (the dashboard's connection form, the outbound portal) makes the API call.
 */
export function OrderingPanel({
  blockedKeys,
  onRelease,
  busy = false,
  eventHref,
}: {
  blockedKeys: BlockedKey[];
  onRelease: (keys?: string[]) => Promise<unknown>;
  busy?: boolean;
  eventHref?: (eventId: string) => string;
}) {
  const [released, setReleased] = useState<ReadonlySet<string>>(new Set());
  // What is being released: every key, or one key's entry.
  const [pending, setPending] = useState<{ all: true } | { entry: string } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const { dialog, confirm } = useConfirm();
  const shown = blockedKeys.filter((b) => !released.has(entryId(b)));

  async function release(entries: BlockedKey[], all: boolean) {
    setPending(all ? { all: true } : { entry: entryId(entries[0]) });
    setError(null);
    try {
      await onRelease(all ? undefined : entries.map((b) => b.key));
      setReleased((before) => new Set([...before, ...entries.map(entryId)]));
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    } finally {
      setPending(null);
    }
  }

  const disabled = busy || pending !== null;
  return (
    <div className="grid gap-2" data-testid="ordering-panel">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <p className="text-sm text-zinc-700 dark:text-zinc-300" role="status" data-testid="blocked-count">
          {shown.length === 0
            ? "No key is blocked."
            : `${shown.length} blocked ${shown.length === 1 ? "key" : "keys"}: later events of a key wait until it is released.`}
        </p>
        {shown.length > 0 && (
          <Button
            size="sm"
            variant="dangerOutline"
            disabled={disabled}
            data-testid="release-all"
            onClick={() =>
              confirm({
                title: "Release every blocked key?",
                body: "Every key blocked now is released (also any this list does not show). The blocking events stay failed; each key's next event is delivered.",
                confirmLabel: "Release all",
                onConfirm: () => void release(shown, true),
              })
            }
          >
            {pending && "all" in pending ? "Releasing…" : "Release all"}
          </Button>
        )}
      </div>
      {error && <Notice tone="danger">{error}</Notice>}
      {shown.length > 0 && (
        <Table caption="Blocked ordering keys">
          <thead>
            <tr>
              <Th>Key</Th>
              <Th>Blocking event</Th>
              <Th className="hidden sm:table-cell">Blocked since</Th>
              <Th>
                <span className="sr-only">Actions</span>
              </Th>
            </tr>
          </thead>
          <tbody>
            {shown.map((b) => (
              <tr key={entryId(b)} data-testid="blocked-key" data-key={b.key}>
                <Td className="max-w-48 min-w-16 text-xs break-words">
                  {b.key === "" ? <span className="italic">{keyText(b.key)}</span> : <span className="font-mono">{b.key}</span>}
                  {/* On a phone the time goes under the key (its column is hidden). */}
                  <span className="mt-0.5 block text-zinc-600 sm:hidden dark:text-zinc-400">
                    since <RelativeTime iso={b.blocked_at} />
                  </span>
                </Td>
                <Td className="max-w-32 sm:max-w-56">
                  <IdLink id={b.event_id} href={eventHref?.(b.event_id)} testId="blocking-event" />
                </Td>
                <Td className="hidden text-xs whitespace-nowrap sm:table-cell">
                  <RelativeTime iso={b.blocked_at} />
                </Td>
                <Td className="text-right">
                  <Button size="xs" disabled={disabled} aria-label={`Release key ${keyText(b.key)}`} onClick={() => void release([b], false)}>
                    {pending && "entry" in pending && pending.entry === entryId(b) ? "Releasing…" : "Release"}
                  </Button>
                </Td>
              </tr>
            ))}
          </tbody>
        </Table>
      )}
      {dialog}
    </div>
  );
}
