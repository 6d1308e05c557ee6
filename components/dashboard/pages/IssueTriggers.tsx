"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { api, apiAll, type Paged } from "@/components/dashboard/api";
import { fieldErrors } from "@/components/dashboard/forms";
import { EnableDeleteActions, QueryView } from "@/components/dashboard/pages/QueryView";
import { Badge } from "@/components/ui/Badge";
import { Button, ButtonLink } from "@/components/ui/Button";
import { Card } from "@/components/ui/Card";
import { EmptyState, ErrorMessage } from "@/components/ui/EmptyState";
import { Checkbox, Field, Input, Select } from "@/components/ui/Field";
import { PageHeader } from "@/components/ui/PageHeader";
import { Table, Td, Th } from "@/components/ui/Table";
import type { ZIssueTrigger } from "@/lib/gateway/issues/schemas";
import type { z } from "zod";

/** An issue trigger as the API answers it (the server's schema; a type-only import). */
type Trigger = z.infer<typeof ZIssueTrigger>;
const TOPICS = ["issue.opened", "issue.updated", "event.successful", "deprecated.attempt-failed"] as const;
const TARGET: Record<Trigger["type"], { key: string; label: string }> = {
  delivery: { key: "connections", label: "Connections" },
  transformation: { key: "transformations", label: "Transformations" },
  backpressure: { key: "destinations", label: "Destinations" },
};

function describe(t: Trigger): string {
  const c = t.configs;
  const target = c[TARGET[t.type].key];
  const targets = Array.isArray(target) ? target.join(", ") : String(target);
  if (t.type === "delivery") return `${c.strategy === "final_attempt" ? "Final" : "Any"} failed attempt · ${targets}`;
  if (t.type === "transformation") return `${String(c.log_level)} and above · ${targets}`;
  return `Waiting over ${Math.round(Number(c.delay) / 60_000)} min · ${targets}`;
}

/** Issue triggers (which failures open issues) and the webhook notification settings. */
export function IssueTriggers() {
  const client = useQueryClient();
  const list = useQuery({ queryKey: ["issue-triggers"], queryFn: () => api<Paged<Trigger>>("issue-triggers?limit=100") });
  const act = useMutation({
    mutationFn: ({ t, verb }: { t: Trigger; verb: "enable" | "disable" | "delete" }) =>
      verb === "delete" ? api(`issue-triggers/${t.id}`, { method: "DELETE" }) : api(`issue-triggers/${t.id}/${verb}`, { method: "PUT" }),
    onSettled: () => client.invalidateQueries({ queryKey: ["issue-triggers"] }),
  });

  return (
    <>
      <PageHeader
        title="Issue triggers and notifications"
        description="Choose which failures open issues, and where Hookyard tells you about them."
        actions={
          <ButtonLink href="/dashboard/issues" variant="ghost">
            Back to issues
          </ButtonLink>
        }
      />
      <div className="grid grid-cols-1 gap-4">
        <Card title="Issue triggers" bodyClassName="p-0!">
          {act.error && (
            <div className="p-4">
              <ErrorMessage title="The trigger could not be changed" error={act.error} />
            </div>
          )}
          <QueryView
            query={list}
            what="Triggers"
            inset
            height="h-20"
            isEmpty={(d) => d.models.length === 0}
            empty={
              <EmptyState title="No triggers yet">
                Without a trigger no issue opens. Create one below: “any failed attempt on every connection” is a good start.
              </EmptyState>
            }
          >
            {(d) => (
              <Table caption="Issue triggers">
                <thead>
                  <tr>
                    <Th>Name</Th>
                    <Th>Type</Th>
                    <Th>Watches</Th>
                    <Th>Channels</Th>
                    <Th>State</Th>
                    <Th>
                      <span className="sr-only">Actions</span>
                    </Th>
                  </tr>
                </thead>
                <tbody>
                  {d.models.map((t) => (
                    <tr key={t.id} data-testid="trigger-row">
                      <Td className="font-medium">{t.name ?? t.id}</Td>
                      <Td>
                        <Badge tone="accent">{t.type}</Badge>
                      </Td>
                      <Td className="text-xs">{describe(t)}</Td>
                      <Td className="text-xs">{Object.keys(t.channels).join(", ") || "—"}</Td>
                      <Td>{t.disabled_at ? <Badge>Disabled</Badge> : <Badge tone="success">Enabled</Badge>}</Td>
                      <Td>
                        <EnableDeleteActions
                          disabled={Boolean(t.disabled_at)}
                          busy={act.isPending}
                          label={`the trigger “${t.name ?? t.id}”`}
                          onToggle={() => act.mutate({ t, verb: t.disabled_at ? "enable" : "disable" })}
                          onDelete={() => act.mutate({ t, verb: "delete" })}
                        />
                      </Td>
                    </tr>
                  ))}
                </tbody>
              </Table>
            )}
          </QueryView>
        </Card>
        <div className="grid grid-cols-1 gap-4 lg:grid-cols-2">
          <NewTrigger onCreated={() => void client.invalidateQueries({ queryKey: ["issue-triggers"] })} />
          <Notifications />
        </div>
      </div>
    </>
  );
}

function NewTrigger({ onCreated }: { onCreated: () => void }) {
  const [name, setName] = useState("");
  const [type, setType] = useState<Trigger["type"]>("delivery");
  const [strategy, setStrategy] = useState("first_attempt");
  const [logLevel, setLogLevel] = useState("error");
  const [delayMin, setDelayMin] = useState("5");
  const [targets, setTargets] = useState("*");
  const [email, setEmail] = useState(false);
  const [slack, setSlack] = useState("");
  const [errors, setErrors] = useState<Record<string, string>>({});
  const create = useMutation({
    mutationFn: () => {
      const list = targets.includes(",")
        ? targets
            .split(",")
            .map((s) => s.trim())
            .filter(Boolean)
        : targets.trim();
      const configs =
        type === "delivery"
          ? { strategy, connections: list }
          : type === "transformation"
            ? { log_level: logLevel, transformations: list }
            : { delay: Math.round(Number(delayMin) * 60_000), destinations: list };
      const channels = { ...(email ? { email: {} } : {}), ...(slack.trim() ? { slack: { channel_name: slack.trim() } } : {}) };
      return api("issue-triggers", { method: "POST", body: { name: name.trim() || null, type, configs, channels } });
    },
    onMutate: () => setErrors({}),
    onError: (err) => setErrors(fieldErrors(err)),
    onSuccess: () => {
      setName("");
      onCreated();
    },
  });
  const target = TARGET[type];
  return (
    <Card title="New issue trigger">
      <form className="grid gap-3" onSubmit={(e) => (e.preventDefault(), create.mutate())} noValidate>
        {create.error && <ErrorMessage title="The trigger could not be created" error={create.error} />}
        <div className="grid gap-3 sm:grid-cols-2">
          <Field label="Name" error={errors.name}>
            {(p) => <Input {...p} value={name} onChange={(e) => setName(e.target.value)} placeholder="failed deliveries" data-testid="trigger-name" />}
          </Field>
          <Field label="Type" error={errors.type}>
            {(p) => (
              <Select {...p} value={type} onChange={(e) => setType(e.target.value as Trigger["type"])}>
                <option value="delivery">Failed delivery</option>
                <option value="transformation">Transformation error</option>
                <option value="backpressure">Backlog (backpressure)</option>
              </Select>
            )}
          </Field>
          {type === "delivery" && (
            <Field label="Open on" error={errors["configs.strategy"]}>
              {(p) => (
                <Select {...p} value={strategy} onChange={(e) => setStrategy(e.target.value)}>
                  <option value="first_attempt">Any failed attempt</option>
                  <option value="final_attempt">Only when retries are exhausted</option>
                </Select>
              )}
            </Field>
          )}
          {type === "transformation" && (
            <Field label="Log level and above" error={errors["configs.log_level"]}>
              {(p) => (
                <Select {...p} value={logLevel} onChange={(e) => setLogLevel(e.target.value)}>
                  {["debug", "info", "warn", "error", "fatal"].map((l) => (
                    <option key={l}>{l}</option>
                  ))}
                </Select>
              )}
            </Field>
          )}
          {type === "backpressure" && (
            <Field label="Waiting longer than (minutes)" error={errors["configs.delay"]} hint="1 to 1440">
              {(p) => <Input {...p} type="number" min={1} max={1440} value={delayMin} onChange={(e) => setDelayMin(e.target.value)} />}
            </Field>
          )}
          <Field label={target.label} error={errors[`configs.${target.key}`]} hint="* for all, a name pattern (shop-*), or ids separated by commas">
            {(p) => <Input {...p} value={targets} onChange={(e) => setTargets(e.target.value)} />}
          </Field>
        </div>
        <fieldset className="grid gap-2">
          <legend className="mb-1 text-xs font-medium text-zinc-700 dark:text-zinc-300">Channels (stored with the trigger)</legend>
          <Checkbox label="Email" checked={email} onChange={(e) => setEmail(e.target.checked)} />
          <Field label="Slack channel" error={errors["channels.slack"]}>
            {(p) => <Input {...p} value={slack} onChange={(e) => setSlack(e.target.value)} placeholder="#alerts" />}
          </Field>
        </fieldset>
        <div className="flex justify-end">
          <Button type="submit" variant="primary" disabled={create.isPending} data-testid="create-trigger">
            {create.isPending ? "Creating…" : "Create trigger"}
          </Button>
        </div>
      </form>
    </Card>
  );
}

function Notifications() {
  const sources = useQuery({ queryKey: ["sources-all"], queryFn: () => apiAll<{ id: string; name: string }>("sources?order_by=name&dir=asc") });
  const [enabled, setEnabled] = useState(true);
  const [topics, setTopics] = useState<string[]>(["issue.opened", "issue.updated"]);
  const [sourceId, setSourceId] = useState("");
  const [errors, setErrors] = useState<Record<string, string>>({});
  const save = useMutation({
    mutationFn: () => api("notifications/webhooks", { method: "PUT", body: { enabled, topics, source_id: sourceId } }),
    onMutate: () => setErrors({}),
    onError: (err) => setErrors(fieldErrors(err)),
  });
  return (
    <Card title="Webhook notifications">
      <form className="grid gap-3" onSubmit={(e) => (e.preventDefault(), save.mutate())} noValidate>
        <p className="text-sm text-zinc-600 dark:text-zinc-400">
          Hookyard posts issue topics as requests into one of your sources; connect that source to Slack, your pager or your own service. The API does not read
          these settings back, so saving replaces them.
        </p>
        {save.error && <ErrorMessage title="The notification settings could not be saved" error={save.error} />}
        {save.isSuccess && (
          <p role="status" className="text-sm text-emerald-700 dark:text-emerald-300">
            Notification settings saved.
          </p>
        )}
        <Checkbox label="Send notifications" checked={enabled} onChange={(e) => setEnabled(e.target.checked)} />
        <fieldset className="grid gap-1.5">
          <legend className="mb-1 text-xs font-medium text-zinc-700 dark:text-zinc-300">Topics</legend>
          {TOPICS.map((t) => (
            <Checkbox
              key={t}
              label={t}
              checked={topics.includes(t)}
              onChange={(e) => setTopics(e.target.checked ? [...topics, t] : topics.filter((x) => x !== t))}
            />
          ))}
          {errors.topics && <p className="text-xs text-rose-700 dark:text-rose-300">{errors.topics}</p>}
        </fieldset>
        <Field label="Into source" error={errors.source_id ?? errors.id}>
          {(p) => (
            <Select {...p} value={sourceId} onChange={(e) => setSourceId(e.target.value)}>
              <option value="">Choose a source…</option>
              {sources.data?.models.map((s) => (
                <option key={s.id} value={s.id}>
                  {s.name}
                </option>
              ))}
            </Select>
          )}
        </Field>
        <div className="flex justify-end">
          <Button type="submit" disabled={save.isPending}>
            {save.isPending ? "Saving…" : "Save notifications"}
          </Button>
        </div>
      </form>
    </Card>
  );
}
