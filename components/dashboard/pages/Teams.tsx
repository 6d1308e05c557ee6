"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { api } from "@/components/dashboard/api";
import { plural, when } from "@/components/dashboard/forms";
import { Badge } from "@/components/ui/Badge";
import { Button } from "@/components/ui/Button";
import { Card } from "@/components/ui/Card";
import { CopyButton } from "@/components/ui/CopyButton";
import { useConfirm } from "@/components/ui/ConfirmDialog";
import { EmptyState, ErrorMessage } from "@/components/ui/EmptyState";
import { Checkbox, Field, Input } from "@/components/ui/Field";
import { Notice } from "@/components/ui/Notice";
import { PageHeader } from "@/components/ui/PageHeader";
import { Table, Td, Th } from "@/components/ui/Table";
import type { newKey, newTeam, newUser, teamsOverview } from "@/lib/dashboard/teams-admin";

/** The operator-only API of the page (docs/operations.md "Teams and users"). */
const TEAMS = "/dashboard/api/teams";

/** JSON of the server's answers (type-only imports; dates are ISO strings on the wire). */
export type Json<T> = T extends Date ? string : T extends (infer U)[] ? Json<U>[] : T extends object ? { [K in keyof T]: Json<T[K]> } : T;
type Team = Json<Awaited<ReturnType<typeof teamsOverview>>>["models"][number];
type NewTeam = Awaited<ReturnType<typeof newTeam>>;
type NewKey = Json<Awaited<ReturnType<typeof newKey>>>;
type NewUser = Json<Awaited<ReturnType<typeof newUser>>>;

/** A secret shown once, with a copy button. */
export function Secret({ label, value, testId }: { label: string; value: string; testId: string }) {
  return (
    <div className="mt-1 flex min-w-0 flex-wrap items-center gap-2">
      <span className="text-xs font-medium">{label}</span>
      <code className="min-w-0 rounded bg-white/70 px-1.5 py-0.5 font-mono text-xs break-all dark:bg-zinc-950/60" data-testid={testId}>
        {value}
      </code>
      <CopyButton value={value} label="Copy" title={`Copy the ${label.toLowerCase()}`} />
    </div>
  );
}

/** The Teams page: every team with its API keys and dashboard users; create teams, keys and users, revoke keys. */
export function Teams() {
  const client = useQueryClient();
  const [name, setName] = useState("");
  const list = useQuery({ queryKey: ["teams"], queryFn: () => api<{ models: Team[] }>(TEAMS) });
  const create = useMutation({
    mutationFn: (n: string) => api<NewTeam>(TEAMS, { method: "POST", body: { name: n } }),
    onSuccess: (made) => {
      setName("");
      // The new team shows at once (at the end: the list is oldest first), then the list is read again.
      client.setQueryData<{ models: Team[] }>(["teams"], (old) =>
        old && !old.models.some((t) => t.id === made.id)
          ? {
              models: [
                ...old.models,
                { id: made.id, name: made.name, created_at: new Date().toISOString(), api_keys: 0, users: 0, gateway: false, keys: [], members: [] },
              ],
            }
          : old,
      );
      void client.invalidateQueries({ queryKey: ["teams"] });
    },
  });

  return (
    <>
      <PageHeader
        title="Teams"
        description="Each team has its own sources, connections, events and API keys; its dashboard users see that team only. Operators see this page, System and Outbound."
      />
      <Card title="New team" className="mb-4">
        <form className="flex flex-col gap-2 sm:flex-row sm:items-start" onSubmit={(e) => (e.preventDefault(), create.mutate(name))} noValidate>
          <Field label="Team name" className="flex-1" error={create.error ? create.error.message : null}>
            {(p) => <Input {...p} value={name} onChange={(e) => setName(e.target.value)} placeholder="Payments" data-testid="new-team-name" />}
          </Field>
          <Button type="submit" variant="primary" className="sm:mt-5" disabled={create.isPending || !name.trim()} data-testid="create-team">
            {create.isPending ? "Creating…" : "Create team"}
          </Button>
        </form>
        {create.data && (
          <Notice tone="info" role="status" className="mt-3" data-testid="new-team-secrets">
            <p>
              Team <strong>{create.data.name}</strong> created (<code className="font-mono text-xs">{create.data.id}</code>). Keep these; they are not shown
              again:
            </p>
            <Secret label="Signing secret" value={create.data.signing_secret} testId="new-team-signing-secret" />
            <Secret label="CLI key" value={create.data.cli_key} testId="new-team-cli-key" />
          </Notice>
        )}
      </Card>
      {list.error ? (
        <ErrorMessage title="Teams could not be loaded" error={list.error} onRetry={() => list.refetch()} />
      ) : !list.data ? (
        <div role="status" className="h-40 animate-pulse rounded-lg bg-zinc-100 dark:bg-zinc-800/60" aria-label="Loading" />
      ) : list.data.models.length === 0 ? (
        <EmptyState title="No teams yet">Create one above; the first start of the server creates the gateway team.</EmptyState>
      ) : (
        <div className="flex flex-col gap-4">
          {list.data.models.map((t) => (
            <TeamCard key={t.id} team={t} />
          ))}
        </div>
      )}
    </>
  );
}

/**
 * One team: its keys (create, revoke) and users (add), and Delete. The Settings page shows the user's own
 * team with it (docs/dashboard.md "Settings"): `base` is then its endpoints (no Delete), `queryKey` the
 * query to read again after a change, and `canMakeOperators` false for a member.
 */
export function TeamCard({
  team,
  base: ownBase,
  queryKey = ["teams"],
  canMakeOperators = true,
}: {
  team: Pick<Team, "id" | "name" | "keys" | "members"> & Partial<Pick<Team, "gateway" | "created_at">>;
  base?: string;
  queryKey?: string[];
  canMakeOperators?: boolean;
}) {
  const client = useQueryClient();
  const refresh = () => client.invalidateQueries({ queryKey });
  const base = ownBase ?? `${TEAMS}/${encodeURIComponent(team.id)}`;
  const [keyName, setKeyName] = useState("");
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [operator, setOperator] = useState(false);
  const addKey = useMutation({
    mutationFn: () => api<NewKey>(`${base}/keys`, { method: "POST", body: { name: keyName.trim() || "key" } }),
    onSuccess: () => (setKeyName(""), refresh()),
  });
  const revoke = useMutation({ mutationFn: (id: string) => api(`${base}/keys/${encodeURIComponent(id)}`, { method: "DELETE" }), onSettled: refresh });
  const addUser = useMutation({
    mutationFn: () => api<NewUser>(`${base}/users`, { method: "POST", body: { email: email.trim(), password: password || null, operator } }),
    onSuccess: () => (setEmail(""), setPassword(""), setOperator(false), refresh()),
  });
  const remove = useMutation({ mutationFn: () => api(base, { method: "DELETE" }), onSuccess: refresh });
  const titleId = `team-${team.id}`;
  const { dialog, confirm } = useConfirm();

  return (
    <Card
      title={team.name}
      titleId={titleId}
      data-testid="team"
      data-id={team.id}
      meta={
        <>
          <code className="font-mono">{team.id}</code>
          {team.gateway && <Badge tone="accent">Gateway team</Badge>}
          {team.created_at && <span>created {when(team.created_at)}</span>}
        </>
      }
      actions={
        !team.gateway &&
        !ownBase && (
          <Button
            size="sm"
            variant="dangerOutline"
            disabled={remove.isPending}
            onClick={() =>
              confirm({ title: `Delete team “${team.name}” with its API keys and users?`, confirmLabel: "Delete team", onConfirm: () => remove.mutate() })
            }
            aria-label={`Delete team ${team.name}`}
          >
            Delete
          </Button>
        )
      }
      bodyClassName="flex flex-col gap-5 p-4"
    >
      {dialog}
      {remove.error && <ErrorMessage title="The team was not deleted" error={remove.error} />}
      <section aria-label={`API keys of ${team.name}`}>
        <h3 className="mb-2 text-sm font-semibold">API keys</h3>
        {team.keys.length === 0 ? (
          <p className="text-sm text-zinc-600 dark:text-zinc-400">No API keys.</p>
        ) : (
          <div className="rounded-md border border-zinc-200 dark:border-zinc-800">
            <Table caption={`API keys of ${team.name}`}>
              <thead>
                <tr>
                  <Th>Name</Th>
                  <Th>Prefix</Th>
                  <Th>Created</Th>
                  <Th>Last used</Th>
                  <Th>
                    <span className="sr-only">State and actions</span>
                  </Th>
                </tr>
              </thead>
              <tbody>
                {team.keys.map((k) => (
                  <tr key={k.id} data-testid="key-row" data-id={k.id}>
                    <Td>{k.name}</Td>
                    <Td className="font-mono text-xs">{k.prefix}…</Td>
                    <Td className="text-xs whitespace-nowrap">{when(k.created_at)}</Td>
                    <Td className="text-xs whitespace-nowrap">{when(k.last_used_at)}</Td>
                    <Td>
                      <div className="flex justify-end">
                        {k.revoked_at ? (
                          <Badge tone="neutral">Revoked</Badge>
                        ) : (
                          <Button
                            size="sm"
                            variant="ghost"
                            disabled={revoke.isPending}
                            onClick={() =>
                              confirm({
                                title: `Revoke the key ${k.prefix}…?`,
                                body: "Calls with it fail at once.",
                                confirmLabel: "Revoke key",
                                onConfirm: () => revoke.mutate(k.id),
                              })
                            }
                            aria-label={`Revoke key ${k.name} (${k.prefix})`}
                          >
                            Revoke
                          </Button>
                        )}
                      </div>
                    </Td>
                  </tr>
                ))}
              </tbody>
            </Table>
          </div>
        )}
        {revoke.error && <ErrorMessage title="The key was not revoked" error={revoke.error} />}
        <form className="mt-2 flex flex-col gap-2 sm:flex-row sm:items-start" onSubmit={(e) => (e.preventDefault(), addKey.mutate())} noValidate>
          <Field label="New key's name" className="flex-1" error={addKey.error ? addKey.error.message : null}>
            {(p) => <Input {...p} value={keyName} onChange={(e) => setKeyName(e.target.value)} placeholder="ci" data-testid="new-key-name" />}
          </Field>
          <Button type="submit" className="sm:mt-5" disabled={addKey.isPending} data-testid="create-key">
            {addKey.isPending ? "Creating…" : "Create API key"}
          </Button>
        </form>
        {addKey.data && (
          <Notice tone="info" role="status" className="mt-2" data-testid="new-key">
            <p>The key {addKey.data.name} is shown this once (only its hash is stored):</p>
            <Secret label="API key" value={addKey.data.key} testId="new-key-value" />
          </Notice>
        )}
      </section>
      <section aria-label={`Users of ${team.name}`}>
        <h3 className="mb-2 text-sm font-semibold">Dashboard users</h3>
        {team.members.length === 0 ? (
          <p className="text-sm text-zinc-600 dark:text-zinc-400">No users.</p>
        ) : (
          <ul className="divide-y divide-zinc-200 rounded-md border border-zinc-200 dark:divide-zinc-800 dark:border-zinc-800">
            {team.members.map((u) => (
              <li key={u.id} className="flex flex-wrap items-center gap-2 px-3 py-2 text-sm" data-testid="user-row">
                <span className="min-w-0 break-all">{u.email}</span>
                <Badge tone={u.operator ? "accent" : "neutral"}>{u.operator ? "operator" : "member"}</Badge>
                {!u.has_password && <Badge tone="warning">No password yet</Badge>}
                <span className="ml-auto text-xs text-zinc-600 dark:text-zinc-400">since {when(u.created_at)}</span>
              </li>
            ))}
          </ul>
        )}
        <form
          className="mt-2 grid grid-cols-1 gap-2 sm:grid-cols-[1fr_1fr_auto] sm:items-start"
          onSubmit={(e) => (e.preventDefault(), addUser.mutate())}
          noValidate
        >
          <Field label="Email" error={addUser.error ? addUser.error.message : null}>
            {(p) => (
              <Input {...p} type="email" value={email} onChange={(e) => setEmail(e.target.value)} placeholder="ana@example.com" data-testid="new-user-email" />
            )}
          </Field>
          <Field label="Password (optional)" hint="Empty: a one-time sign-in link sets it.">
            {(p) => (
              <Input
                {...p}
                type="password"
                autoComplete="new-password"
                value={password}
                onChange={(e) => setPassword(e.target.value)}
                data-testid="new-user-password"
              />
            )}
          </Field>
          <div className="flex flex-col gap-2 sm:mt-5">
            {canMakeOperators && (
              <Checkbox label="Operator" checked={operator} onChange={(e) => setOperator(e.target.checked)} data-testid="new-user-operator" />
            )}
            <Button type="submit" disabled={addUser.isPending || !email.trim()} data-testid="create-user">
              {addUser.isPending ? "Adding…" : "Add user"}
            </Button>
          </div>
        </form>
        {addUser.data?.sign_in_link && (
          <Notice tone="info" role="status" className="mt-2" data-testid="new-user-link">
            <p>Send {addUser.data.email} this one-time sign-in link (24 hours; it sets the password):</p>
            <Secret label="Link" value={addUser.data.sign_in_link} testId="new-user-link-value" />
          </Notice>
        )}
      </section>
      <p className="text-xs text-zinc-600 dark:text-zinc-400">
        {plural(team.keys.filter((k) => !k.revoked_at).length, "live key")}, {plural(team.members.length, "user")}
      </p>
    </Card>
  );
}
