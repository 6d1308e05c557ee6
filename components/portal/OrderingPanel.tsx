"use client";
/**
 * A destination's ordered delivery (docs/outbound.md "Ordered delivery"), on the portal's destination
 * page: where its key comes from, what happens when a delivery runs out of retries, and the keys blocked
 * by one (under `block`: the kit's components/ui/OrderingPanel.tsx, a Release button per key and one for
 * all). Nothing shows for an unordered destination. A release updates the cached destination at once (the
 * released keys leave the list), then the destination is read again.
 */
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { api, type Destination, useDestinationsPath } from "@/components/portal/api";
import { Card, CardHeader } from "@/components/ui/Card";
import { OrderingPanel as KeysPanel } from "@/components/ui/OrderingPanel";

export function OrderingPanel({ d }: { d: Destination }) {
  const client = useQueryClient();
  const path = `${useDestinationsPath()}/${encodeURIComponent(d.id)}/ordering/release`;
  const release = useMutation({
    mutationFn: (keys: string[] | undefined) => api<{ released: number }>(path, { method: "POST", body: keys ? { keys } : undefined }),
    onSuccess: (_answer, keys) => {
      client.setQueryData<Destination>(["portal", "destinations", d.id], (cur) =>
        cur?.ordering
          ? { ...cur, ordering: { ...cur.ordering, blocked_keys: keys ? (cur.ordering.blocked_keys ?? []).filter((b) => !keys.includes(b.key)) : [] } }
          : cur,
      );
      void client.invalidateQueries({ queryKey: ["portal", "destinations", d.id], exact: true });
    },
  });
  if (!d.ordering) return null;
  return (
    <Card bodyClassName="p-0" data-testid="portal-ordering">
      <CardHeader title="Ordered delivery" description="Events with the same key are delivered one at a time, in the order they were published." />
      <div className="space-y-3 p-4 sm:p-5">
        <dl className="grid grid-cols-1 gap-x-6 gap-y-2 text-sm sm:grid-cols-[max-content_1fr]">
          <dt className="text-zinc-600 dark:text-zinc-400">Key</dt>
          <dd data-testid="ordering-key">
            {d.ordering.key ? (
              <>
                Per value of <code className="font-mono">{d.ordering.key}</code>
              </>
            ) : (
              "The whole destination is one sequence"
            )}
          </dd>
          <dt className="text-zinc-600 dark:text-zinc-400">When retries run out</dt>
          <dd data-testid="ordering-on-exhausted">
            {d.ordering.on_exhausted === "block" ? "Block the key until it is released" : "Skip the event and go on with the next"}
          </dd>
        </dl>
        {d.ordering.on_exhausted === "block" && (
          <div className="space-y-2">
            <h3 className="text-sm font-medium">Blocked keys</h3>
            <KeysPanel blockedKeys={d.ordering.blocked_keys ?? []} onRelease={(keys) => release.mutateAsync(keys)} />
          </div>
        )}
      </div>
    </Card>
  );
}
