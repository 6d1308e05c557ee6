"use client";

import Link from "next/link";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { api, qs } from "@/components/dashboard/api";
import { fieldErrors, plural, when } from "@/components/dashboard/forms";
import { Badge } from "@/components/ui/Badge";
import { Button } from "@/components/ui/Button";
import { Card } from "@/components/ui/Card";
import { useConfirm } from "@/components/ui/ConfirmDialog";
import { EmptyState, ErrorMessage } from "@/components/ui/EmptyState";
import { Field, Input } from "@/components/ui/Field";
import { PageHeader } from "@/components/ui/PageHeader";
import { Table, Td, Th } from "@/components/ui/Table";
import type { toTenant } from "@/lib/outbound/tenants";

/** The outbound API as the dashboard calls it (self-hosted form; docs/outbound.md). */
export const OUTBOUND = "/outbound/api/v1";

/** A tenant as the outbound API answers it (the server's own model; a type-only import). */
export type Tenant = ReturnType<typeof toTenant>;
export type OutboundPage<T> = { models: T[]; pagination: { next: string | null; prev: string | null }; count?: number };

/** The Outbound page: tenants (newest first, paged), a search by tenant id, create and delete. */
export function Tenants() {
  const router = useRouter();
  const client = useQueryClient();
  const [search, setSearch] = useState("");
  const [cursor, setCursor] = useState<{ next?: string; prev?: string }>({});
  const [newId, setNewId] = useState("");
  const [createErrors, setCreateErrors] = useState<Record<string, string>>({});
  const path = `${OUTBOUND}/tenants${qs({ id: search.trim(), limit: 20, ...cursor })}`;
  const list = useQuery({ queryKey: ["tenants", path], queryFn: () => api<OutboundPage<Tenant>>(path), placeholderData: (p) => p });
  const create = useMutation({
    mutationFn: (id: string) => api<Tenant>(`${OUTBOUND}/tenants/${encodeURIComponent(id)}`, { method: "PUT", body: {} }),
    onMutate: () => setCreateErrors({}),
    onError: (err) => setCreateErrors(fieldErrors(err)),
    onSuccess: (t) => {
      void client.invalidateQueries({ queryKey: ["tenants"] });
      router.push(`/dashboard/outbound/${encodeURIComponent(t.id)}`);
    },
  });
  const remove = useMutation({
    mutationFn: (id: string) => api(`${OUTBOUND}/tenants/${encodeURIComponent(id)}`, { method: "DELETE" }),
    onSettled: () => client.invalidateQueries({ queryKey: ["tenants"] }),
  });
  const { dialog, confirm } = useConfirm();

  return (
    <>
      {dialog}
      <PageHeader
        title="Outbound"
        description="Tenants are your customers: each has its own destinations, and every event you publish for them is delivered, signed and retried."
      />
      <div className="mb-4 grid grid-cols-1 gap-4 md:grid-cols-2">
        <Card title="Find a tenant">
          <Field label="Tenant id" hint="The exact id, as you gave it when you created the tenant.">
            {(p) => (
              <Input
                {...p}
                type="search"
                value={search}
                onChange={(e) => (setSearch(e.target.value), setCursor({}))}
                placeholder="acme"
                data-testid="tenant-search"
              />
            )}
          </Field>
        </Card>
        <Card title="New tenant">
          <form className="flex flex-col gap-2 sm:flex-row sm:items-start" onSubmit={(e) => (e.preventDefault(), create.mutate(newId.trim()))} noValidate>
            <Field label="Tenant id" className="flex-1" error={createErrors.id ?? createErrors.tenant_id ?? (create.error ? create.error.message : null)}>
              {(p) => <Input {...p} value={newId} onChange={(e) => setNewId(e.target.value)} placeholder="acme" data-testid="new-tenant-id" />}
            </Field>
            <Button type="submit" variant="primary" className="sm:mt-5" disabled={create.isPending || !newId.trim()} data-testid="create-tenant">
              {create.isPending ? "Creating…" : "Create tenant"}
            </Button>
          </form>
        </Card>
      </div>
      {remove.error && (
        <div className="mb-4">
          <ErrorMessage title="The tenant could not be deleted" error={remove.error} />
        </div>
      )}
      {list.error ? (
        <ErrorMessage title="Tenants could not be loaded" error={list.error} onRetry={() => list.refetch()} />
      ) : !list.data ? (
        <div className="h-40 animate-pulse rounded-lg bg-zinc-100 dark:bg-zinc-800/60" aria-label="Loading" />
      ) : list.data.models.length === 0 ? (
        <EmptyState title={search ? `No tenant “${search}”` : "No tenants yet"}>
          {search
            ? "Check the id; the search matches whole ids."
            : "Create a tenant above (or PUT /tenants/{id} from your product), then give it a destination and publish events."}
        </EmptyState>
      ) : (
        <Card
          bodyClassName="p-0!"
          actions={
            list.data.count !== undefined ? <span className="text-xs text-zinc-600 dark:text-zinc-400">{plural(list.data.count, "tenant")}</span> : undefined
          }
          title="Tenants"
        >
          <Table caption="Tenants">
            <thead>
              <tr>
                <Th>Tenant</Th>
                <Th>Destinations</Th>
                <Th>Topics</Th>
                <Th>Created</Th>
                <Th>
                  <span className="sr-only">Actions</span>
                </Th>
              </tr>
            </thead>
            <tbody>
              {list.data.models.map((t) => (
                <tr key={t.id} data-testid="tenant-row" data-id={t.id}>
                  <Td className="min-w-32">
                    <Link
                      href={`/dashboard/outbound/${encodeURIComponent(t.id)}`}
                      className="font-mono font-medium text-indigo-700 hover:underline dark:text-indigo-300"
                    >
                      {t.id}
                    </Link>
                  </Td>
                  <Td>{t.destinations_count}</Td>
                  <Td>
                    <div className="flex flex-wrap gap-1">
                      {t.topics.slice(0, 4).map((x) => (
                        <Badge key={x}>{x}</Badge>
                      ))}
                      {t.topics.length > 4 && <Badge>+{t.topics.length - 4}</Badge>}
                      {t.topics.length === 0 && "—"}
                    </div>
                  </Td>
                  <Td className="whitespace-nowrap text-xs">{when(t.created_at)}</Td>
                  <Td>
                    <div className="flex justify-end">
                      <Button
                        size="sm"
                        variant="ghost"
                        disabled={remove.isPending}
                        onClick={() =>
                          confirm({
                            title: `Delete tenant “${t.id}” and all its destinations?`,
                            confirmLabel: "Delete tenant",
                            onConfirm: () => remove.mutate(t.id),
                          })
                        }
                        aria-label={`Delete tenant ${t.id}`}
                      >
                        Delete
                      </Button>
                    </div>
                  </Td>
                </tr>
              ))}
            </tbody>
          </Table>
          {(list.data.pagination.prev || list.data.pagination.next) && (
            <div className="flex justify-between gap-2 p-3">
              <Button size="sm" disabled={!list.data.pagination.prev} onClick={() => setCursor({ prev: list.data.pagination.prev! })}>
                Newer
              </Button>
              <Button size="sm" disabled={!list.data.pagination.next} onClick={() => setCursor({ next: list.data.pagination.next! })}>
                Older
              </Button>
            </div>
          )}
        </Card>
      )}
    </>
  );
}
