"use client";

import Link from "next/link";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { api, type Connection, qs, type Paged } from "@/components/dashboard/api";
import { Badge } from "@/components/ui/Badge";
import { Button, ButtonLink } from "@/components/ui/Button";
import { Card } from "@/components/ui/Card";
import { EmptyState, ErrorMessage } from "@/components/ui/EmptyState";
import { Checkbox, Field, Input } from "@/components/ui/Field";
import { PageHeader } from "@/components/ui/PageHeader";
import { Table, Td, Th } from "@/components/ui/Table";

/** A connection as `GET /connections` answers it (docs/gateway-api.md "Connections"). */
/** A connection as the API answers it, with its full source and destination. */
export type FullConnection = Connection;

/** The connection's state as a badge: Disabled, Paused or Active. */
export function ConnectionState({ c }: { c: Pick<FullConnection, "paused_at" | "disabled_at"> }) {
  if (c.disabled_at) return <Badge tone="neutral">Disabled</Badge>;
  if (c.paused_at) return <Badge tone="warning">Paused</Badge>;
  return <Badge tone="success">Active</Badge>;
}

/** The Connections page: every connection with its source (and URL to send to) and destination, pause and disable. */
export function ConnectionsList() {
  const [search, setSearch] = useState("");
  const [showDisabled, setShowDisabled] = useState(false);
  const client = useQueryClient();
  const path = `connections${qs({ "full_name[contains]": search.trim(), disabled: showDisabled ? true : undefined, limit: 100, order_by: "created_at" })}`;
  const list = useQuery({ queryKey: ["connections", path], queryFn: () => api<Paged<FullConnection>>(path) });
  const action = useMutation({
    mutationFn: ({ id, verb }: { id: string; verb: string }) => api(`connections/${id}/${verb}`, { method: "PUT" }),
    onSettled: () => client.invalidateQueries({ queryKey: ["connections"] }),
  });

  return (
    <>
      <PageHeader
        title="Connections"
        description="Each connection routes the requests of a source to a destination, through its rules."
        actions={
          <>
            <ButtonLink href="/dashboard/connections/transformations" variant="secondary">
              Transformations
            </ButtonLink>
            <ButtonLink href="/dashboard/connections/new" variant="primary" data-testid="new-connection">
              New connection
            </ButtonLink>
          </>
        }
      />
      <div className="mb-4 flex flex-col gap-3 sm:flex-row sm:items-end">
        <Field label="Search by name" className="sm:w-72">
          {(p) => <Input {...p} type="search" value={search} onChange={(e) => setSearch(e.target.value)} placeholder="shopify" />}
        </Field>
        <Checkbox label="Show disabled" checked={showDisabled} onChange={(e) => setShowDisabled(e.target.checked)} className="sm:mb-1.5" />
      </div>
      {action.error && (
        <div className="mb-4">
          <ErrorMessage title="The connection could not be changed" error={action.error} />
        </div>
      )}
      {list.error ? (
        <ErrorMessage title="Connections could not be loaded" error={list.error} onRetry={() => list.refetch()} />
      ) : !list.data ? (
        <div role="status" className="h-40 animate-pulse rounded-lg bg-zinc-100 dark:bg-zinc-800/60" aria-label="Loading" />
      ) : list.data.models.length === 0 ? (
        <EmptyState
          title={search ? `No connection matches “${search}”` : "No connections yet"}
          action={
            !search && (
              <ButtonLink href="/dashboard/connections/new" variant="primary">
                Create your first connection
              </ButtonLink>
            )
          }
        >
          {search
            ? "Try another part of the name, or clear the search."
            : "Create a connection: you get a source URL to send webhooks to, and Hookyard delivers them to your destination with retries."}
        </EmptyState>
      ) : (
        <Card bodyClassName="p-0!">
          <Table caption="Connections">
            <thead>
              <tr>
                <Th>Connection</Th>
                <Th>Source</Th>
                <Th>Destination</Th>
                <Th>Rules</Th>
                <Th>State</Th>
                <Th>
                  <span className="sr-only">Actions</span>
                </Th>
              </tr>
            </thead>
            <tbody>
              {list.data.models.map((c) => (
                <tr key={c.id} data-testid="connection-row" data-name={c.name}>
                  <Td className="min-w-32">
                    <Link href={`/dashboard/connections/${c.id}`} className="font-medium text-indigo-700 hover:underline dark:text-indigo-300" title={c.id}>
                      {c.name}
                    </Link>
                  </Td>
                  <Td className="min-w-44">
                    <div className="font-medium">
                      {c.source.name} <span className="text-xs font-normal text-zinc-600 dark:text-zinc-400">{c.source.type}</span>
                    </div>
                    <code className="block max-w-60 truncate text-xs text-zinc-600 dark:text-zinc-400" title={c.source.url} data-testid="source-url">
                      {c.source.url}
                    </code>
                  </Td>
                  <Td className="min-w-40">
                    <div className="font-medium">
                      {c.destination.name} <span className="text-xs font-normal text-zinc-600 dark:text-zinc-400">{c.destination.type}</span>
                    </div>
                    <code
                      className="block max-w-52 truncate text-xs text-zinc-600 dark:text-zinc-400"
                      title={c.destination.config.url ?? c.destination.config.path ?? undefined}
                    >
                      {c.destination.config.url ?? c.destination.config.path ?? "—"}
                    </code>
                  </Td>
                  <Td>
                    <div className="flex max-w-40 flex-wrap gap-1">
                      {c.rules.length ? (
                        c.rules.map((r, i) => <Badge key={i}>{String(r.type)}</Badge>)
                      ) : (
                        <span className="text-xs text-zinc-600 dark:text-zinc-400">—</span>
                      )}
                    </div>
                  </Td>
                  <Td>
                    <ConnectionState c={c} />
                  </Td>
                  <Td>
                    <div className="flex justify-end gap-1.5">
                      {!c.disabled_at && (
                        <Button
                          size="sm"
                          disabled={action.isPending}
                          onClick={() => action.mutate({ id: c.id, verb: c.paused_at ? "unpause" : "pause" })}
                          aria-label={`${c.paused_at ? "Unpause" : "Pause"} ${c.name}`}
                        >
                          {c.paused_at ? "Unpause" : "Pause"}
                        </Button>
                      )}
                      <Button
                        size="sm"
                        variant={c.disabled_at ? "secondary" : "ghost"}
                        disabled={action.isPending}
                        onClick={() => action.mutate({ id: c.id, verb: c.disabled_at ? "enable" : "disable" })}
                        aria-label={`${c.disabled_at ? "Enable" : "Disable"} ${c.name}`}
                      >
                        {c.disabled_at ? "Enable" : "Disable"}
                      </Button>
                    </div>
                  </Td>
                </tr>
              ))}
            </tbody>
          </Table>
        </Card>
      )}
    </>
  );
}
