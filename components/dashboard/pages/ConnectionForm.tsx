"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { api, apiAll, type GatewayEvent, type Paged } from "@/components/dashboard/api";
import { fieldErrors, listField, parseJsonField } from "@/components/dashboard/forms";
import { ConnectionState, type FullConnection } from "@/components/dashboard/pages/ConnectionsList";
import { EventsTable, QueryView } from "@/components/dashboard/pages/QueryView";
import { Button, ButtonLink } from "@/components/ui/Button";
import { Card } from "@/components/ui/Card";
import { CopyButton } from "@/components/ui/CopyButton";
import { EmptyState, ErrorMessage } from "@/components/ui/EmptyState";
import { Field, Input, Select } from "@/components/ui/Field";
import { PageHeader } from "@/components/ui/PageHeader";
import { CodeEditor } from "@/components/ui/CodeEditor";
import { Textarea } from "@/components/ui/Textarea";
import { findSourceType, listSourceTypes } from "@/lib/gateway/sources/types";
import { displayText } from "@/components/ui/text";
import { type DeliveryState, DeliveryStateBadges } from "@/components/ui/DeliveryStateBadges";
import { type BlockedKey, OrderingPanel } from "@/components/ui/OrderingPanel";

type Errors = Record<string, string>;
type Named = { id: string; name: string };

const GENERIC_SOURCE_AUTH: Record<string, string[]> = {
  HMAC: ["algorithm", "encoding", "header_key", "webhook_secret_key"],
  BASIC_AUTH: ["username", "password"],
  API_KEY: ["header_key", "api_key"],
};
const DESTINATION_AUTH: Record<string, string[]> = {
  GATEWAY_SIGNATURE: [],
  CUSTOM_SIGNATURE: ["key", "signing_secret"],
  BASIC_AUTH: ["username", "password"],
  API_KEY: ["key", "api_key", "to"],
  BEARER_TOKEN: ["token"],
};
const CHOICES: Record<string, string[]> = { algorithm: ["sha256", "sha1", "sha512", "md5"], encoding: ["hex", "base64", "base64url"], to: ["header", "query"] };
const SECRET = /secret|password|api_key|token/;
const LABELS: Record<string, string> = {
  header_key: "Header name",
  webhook_secret_key: "Signing secret",
  api_key: "API key",
  signing_secret: "Signing secret",
  key: "Header name",
  public_key: "Public key",
  webhook_id: "Webhook id",
  to: "Send the key in",
};
const label = (f: string) => LABELS[f] ?? f.charAt(0).toUpperCase() + f.slice(1).replaceAll("_", " ");
const generic = (type: string) => type === "WEBHOOK" || type === "HTTP";

type SourceDraft = { mode: "new" | "existing"; id: string; name: string; type: string; auth_type: string; auth: Record<string, string> };
type DestinationDraft = {
  mode: "new" | "existing";
  id: string;
  name: string;
  type: string;
  url: string;
  path: string;
  http_method: string;
  rate_limit: string;
  rate_limit_period: string;
  auth_type: string;
  auth: Record<string, string>;
  /** Ordered delivery (docs/pipeline.md "Ordered delivery"): on or off, the key path ("" = one sequence), on exhaustion. */
  ordered: boolean;
  ordering_key: string;
  on_exhausted: "skip" | "block";
};
/** A destination's `ordering` as reads show it (docs/gateway-api.md "Ordered delivery"). */
type OrderingRead = { key: string | null; on_exhausted: "skip" | "block"; blocked_keys?: BlockedKey[] };
type RuleDraft =
  | { key: number; type: "filter"; body: string; headers: string; query: string; path: string }
  | { key: number; type: "transform"; mode: "existing" | "new"; transformation_id: string; name: string; code: string }
  | { key: number; type: "deduplicate"; window: string; include: string; exclude: string }
  | { key: number; type: "delay"; delay: string }
  | { key: number; type: "retry"; strategy: string; count: string; interval: string; codes: string };
type RuleType = RuleDraft["type"];

let nextKey = 1;
const EXAMPLE_CODE = `addHandler("transform", (request, context) => {\n  // request: {headers, body, path, query}\n  return request;\n});`;
const json = (v: unknown) => (v === undefined ? "" : JSON.stringify(v, null, 2));
const str = (v: unknown) => (v === undefined || v === null ? "" : displayText(v));

function newRule(type: RuleType): RuleDraft {
  const key = nextKey++;
  switch (type) {
    case "filter":
      return { key, type, body: "", headers: "", query: "", path: "" };
    case "transform":
      return { key, type, mode: "new", transformation_id: "", name: "", code: EXAMPLE_CODE };
    case "deduplicate":
      return { key, type, window: "60", include: "", exclude: "" };
    case "delay":
      return { key, type, delay: "1000" };
    case "retry":
      return { key, type, strategy: "exponential", count: "5", interval: "60000", codes: "" };
  }
}

function ruleDraft(r: Record<string, unknown>): RuleDraft {
  const key = nextKey++;
  switch (r.type) {
    case "filter":
      return {
        key,
        type: "filter",
        body: json(r.body),
        headers: json(r.headers),
        query: json(r.query),
        path: typeof r.path === "string" ? r.path : json(r.path),
      };
    case "transform":
      return { key, type: "transform", mode: "existing", transformation_id: str(r.transformation_id), name: "", code: EXAMPLE_CODE };
    case "deduplicate":
      return {
        key,
        type: "deduplicate",
        window: str(r.window),
        include: ((r.include_fields as string[]) ?? []).join(", "),
        exclude: ((r.exclude_fields as string[]) ?? []).join(", "),
      };
    case "delay":
      return { key, type: "delay", delay: str(r.delay) };
    default:
      return {
        key,
        type: "retry",
        strategy: str(r.strategy) || "exponential",
        count: str(r.count),
        interval: str(r.interval),
        codes: ((r.response_status_codes as string[]) ?? []).join(", "),
      };
  }
}

/** The saved destination's `ordering` of a loaded connection; null when unordered (or not loaded). */
const orderingOf = (c: FullConnection | undefined): OrderingRead | null => (c?.destination as { ordering?: OrderingRead } | undefined)?.ordering ?? null;

const num = (s: string) => (s.trim() === "" ? undefined : Number(s));

/** The API form of a rule draft; throws an Error naming the rule when a JSON field does not parse. */
function ruleBody(r: RuleDraft, i: number): Record<string, unknown> {
  const at = `Rule ${i + 1} (${r.type})`;
  switch (r.type) {
    case "filter": {
      const path = r.path.trim().startsWith("{") ? parseJsonField(r.path, `${at}: path`) : r.path.trim() || undefined;
      return {
        type: "filter",
        body: parseJsonField(r.body, `${at}: body`),
        headers: parseJsonField(r.headers, `${at}: headers`),
        query: parseJsonField(r.query, `${at}: query`),
        path,
      };
    }
    case "transform":
      return r.mode === "existing"
        ? { type: "transform", transformation_id: r.transformation_id }
        : { type: "transform", transformation: { name: r.name.trim(), code: r.code } };
    case "deduplicate":
      return { type: "deduplicate", window: num(r.window), include_fields: listField(r.include), exclude_fields: listField(r.exclude) };
    case "delay":
      return { type: "delay", delay: num(r.delay) };
    case "retry":
      return { type: "retry", strategy: r.strategy, count: num(r.count), interval: num(r.interval), response_status_codes: listField(r.codes) };
  }
}

function authBody(fields: string[], auth: Record<string, string>) {
  return Object.fromEntries(fields.map((f) => [f, auth[f] ?? CHOICES[f]?.[0] ?? ""]));
}

/** `{type, config}` of the source draft, as `POST /sources` and `PUT /sources/{id}` take it. */
function sourceConfig(s: SourceDraft) {
  if (generic(s.type))
    return s.auth_type ? { auth_type: s.auth_type, auth: authBody(GENERIC_SOURCE_AUTH[s.auth_type] ?? [], s.auth) } : { auth_type: null, auth: null };
  const fields = findSourceType(s.type)?.authFields ?? [];
  const auth = Object.fromEntries(fields.filter((f) => s.auth[f]).map((f) => [f, s.auth[f]]));
  return Object.keys(auth).length ? { auth } : {};
}

function destinationConfig(d: DestinationDraft) {
  if (d.type === "MOCK_API") return {};
  if (d.type === "CLI") return { path: d.path || "/" };
  return {
    url: d.url.trim(),
    http_method: d.http_method || null,
    rate_limit: num(d.rate_limit) ?? null,
    ...(d.rate_limit ? { rate_limit_period: d.rate_limit_period } : {}),
    auth_type: d.auth_type,
    auth: authBody(DESTINATION_AUTH[d.auth_type] ?? [], d.auth),
  };
}

/**
 * The `ordering` field of a destination create or update: the setting when on; when off, null on an update of
 * a destination that was ordered (turns it off), else absent (unchanged: the field is optional).
 */
function orderingBody(d: DestinationDraft, wasOrdered: boolean) {
  if (d.ordered) return { ordering: { key: d.ordering_key.trim() || null, on_exhausted: d.on_exhausted } };
  return wasOrdered ? { ordering: null } : {};
}

const EMPTY_SOURCE: SourceDraft = { mode: "new", id: "", name: "", type: "WEBHOOK", auth_type: "", auth: {} };
const EMPTY_DESTINATION: DestinationDraft = {
  mode: "new",
  id: "",
  name: "",
  type: "HTTP",
  url: "",
  path: "/",
  http_method: "",
  rate_limit: "",
  rate_limit_period: "second",
  auth_type: "GATEWAY_SIGNATURE",
  auth: {},
  ordered: false,
  ordering_key: "",
  on_exhausted: "skip",
};

/**
 * Create (no `id`) or edit a connection: its source (type and verification), destination (URL, method,
 * auth, rate limit) and ordered rules. Saving creates the connection in one `POST /connections`; an edit
 * puts the source, the destination and then the connection. 422 field errors show beside their fields.
 */
export function ConnectionForm({ id }: { id?: string }) {
  const router = useRouter();
  const client = useQueryClient();
  const editing = Boolean(id);
  const existing = useQuery({
    queryKey: ["connection", id],
    enabled: editing,
    queryFn: async () => {
      const c = await api<FullConnection>(`connections/${id}`);
      const [source, destination] = await Promise.all([
        api<FullConnection["source"]>(`sources/${c.source.id}?include=config.auth`),
        api<FullConnection["destination"]>(`destinations/${c.destination.id}?include=config.auth`),
      ]);
      return { ...c, source: { ...c.source, ...source }, destination: { ...c.destination, ...destination } };
    },
  });
  const sources = useQuery({ queryKey: ["sources-all"], queryFn: () => apiAll<Named>("sources?order_by=name&dir=asc"), enabled: !editing });
  const destinations = useQuery({ queryKey: ["destinations-all"], queryFn: () => apiAll<Named>("destinations?order_by=name&dir=asc"), enabled: !editing });
  const transformations = useQuery({ queryKey: ["transformations-all"], queryFn: () => apiAll<Named>("transformations?order_by=name&dir=asc") });

  const [name, setName] = useState("");
  const [description, setDescription] = useState("");
  const [source, setSource] = useState<SourceDraft>(EMPTY_SOURCE);
  const [destination, setDestination] = useState<DestinationDraft>(EMPTY_DESTINATION);
  const [rules, setRules] = useState<RuleDraft[]>([]);
  const [errors, setErrors] = useState<Errors>({});
  const [error, setError] = useState<unknown>(null);
  const [saving, setSaving] = useState(false);
  const [saved, setSaved] = useState(false);

  // The loaded connection fills the form (during render, once per answer of the query).
  const [loadedFrom, setLoadedFrom] = useState<typeof existing.data>(undefined);
  if (existing.data && existing.data !== loadedFrom) {
    const c = existing.data;
    setLoadedFrom(c);
    setName(c.name);
    setDescription(c.description ?? "");
    const sauth = c.source.config.auth ?? {};
    setSource({
      mode: "existing",
      id: c.source.id,
      name: c.source.name,
      type: c.source.type,
      auth_type: generic(c.source.type) ? (c.source.config.auth_type ?? "") : "",
      auth: Object.fromEntries(Object.entries(sauth).map(([k, v]) => [k, str(v)])),
    });
    const dc = c.destination.config;
    const ordering = orderingOf(c);
    setDestination({
      mode: "existing",
      id: c.destination.id,
      name: c.destination.name,
      type: c.destination.type,
      url: dc.url ?? "",
      path: dc.path ?? "/",
      http_method: dc.http_method ?? "",
      rate_limit: str(dc.rate_limit),
      rate_limit_period: dc.rate_limit_period ?? "second",
      auth_type: dc.auth_type ?? "GATEWAY_SIGNATURE",
      auth: Object.fromEntries(Object.entries(dc.auth ?? {}).map(([k, v]) => [k, str(v)])),
      ordered: Boolean(ordering),
      ordering_key: ordering?.key ?? "",
      on_exhausted: ordering?.on_exhausted ?? "skip",
    });
    setRules(c.rules.map(ruleDraft));
  }

  async function save(e: React.FormEvent) {
    e.preventDefault();
    setSaving(true);
    setErrors({});
    setError(null);
    setSaved(false);
    let step = "";
    try {
      const ruleBodies = rules.map(ruleBody);
      if (!editing) {
        step = "";
        const body = {
          name: name.trim(),
          description: description.trim() || null,
          ...(source.mode === "existing"
            ? { source_id: source.id }
            : { source: { name: source.name.trim(), type: source.type, config: sourceConfig(source) } }),
          ...(destination.mode === "existing"
            ? { destination_id: destination.id }
            : {
                destination: {
                  name: destination.name.trim(),
                  type: destination.type,
                  config: destinationConfig(destination),
                  ...orderingBody(destination, false),
                },
              }),
          rules: ruleBodies,
        };
        const created = await api<FullConnection>("connections", { method: "POST", body });
        await client.invalidateQueries({ queryKey: ["connections"] });
        router.push(`/dashboard/connections/${created.id}?created=1`);
        return;
      }
      step = "source.";
      await api(`sources/${source.id}`, { method: "PUT", body: { config: sourceConfig(source) } });
      step = "destination.";
      await api(`destinations/${destination.id}`, {
        method: "PUT",
        body: { config: destinationConfig(destination), ...orderingBody(destination, Boolean(orderingOf(existing.data))) },
      });
      step = "";
      await api(`connections/${id}`, { method: "PUT", body: { name: name.trim(), description: description.trim() || null, rules: ruleBodies } });
      await client.invalidateQueries({ queryKey: ["connections"] });
      await existing.refetch();
      setSaved(true);
    } catch (err) {
      setError(err);
      setErrors(fieldErrors(err, step));
    } finally {
      setSaving(false);
    }
  }

  const c = existing.data;
  const ruleErrors = (i: number) => Object.entries(errors).filter(([k]) => k === `rules.${i}` || k.startsWith(`rules.${i}.`));
  const justCreated = typeof window !== "undefined" && new URLSearchParams(window.location.search).has("created");

  if (editing && existing.error) return <ErrorMessage title="The connection could not be loaded" error={existing.error} onRetry={() => existing.refetch()} />;
  if (editing && !c) return <div role="status" className="h-64 animate-pulse rounded-lg bg-zinc-100 dark:bg-zinc-800/60" aria-label="Loading" />;

  return (
    <>
      <form onSubmit={(e) => void save(e)} noValidate>
        <PageHeader
          title={c ? c.name : "New connection"}
          description={
            c ? (
              <span className="inline-flex items-center gap-2">
                <ConnectionState c={c} /> <span className="font-mono text-xs">{c.id}</span>
              </span>
            ) : (
              "A source to receive requests, a destination to deliver them to, and the rules in between."
            )
          }
          actions={
            <>
              <ButtonLink href="/dashboard/connections" variant="ghost">
                Back to connections
              </ButtonLink>
              {c && (
                <ButtonLink href={`/dashboard/events?webhook_id=${c.id}`} variant="secondary">
                  Events
                </ButtonLink>
              )}
            </>
          }
        />
        {c && (
          <div
            className="mb-4 rounded-lg border border-indigo-200 bg-indigo-50 px-4 py-3 text-sm dark:border-indigo-500/30 dark:bg-indigo-500/10"
            data-testid="source-url-box"
          >
            <p className="font-medium text-indigo-900 dark:text-indigo-100">{justCreated ? "Connection created. Send requests to:" : "Send requests to:"}</p>
            <div className="mt-1 flex flex-wrap items-center gap-2">
              <code className="min-w-0 break-all text-indigo-800 dark:text-indigo-200" data-testid="source-url">
                {c.source.url}
              </code>
              <CopyButton value={c.source.url} label="Copy" title="Copy the source URL" size="sm" />
            </div>
          </div>
        )}
        {error != null && (
          <div className="mb-4">
            <ErrorMessage title="The connection could not be saved" error={error} />
          </div>
        )}
        {saved && (
          <p
            role="status"
            className="mb-4 rounded-lg border border-emerald-300 bg-emerald-50 px-4 py-3 text-sm text-emerald-900 dark:border-emerald-500/40 dark:bg-emerald-500/10 dark:text-emerald-200"
          >
            Saved.
          </p>
        )}
        <div className="grid grid-cols-1 gap-4">
          <Card title="Connection">
            <div className="grid gap-3 sm:grid-cols-2">
              <Field label="Name" error={errors.name} hint="Letters, digits, - and _.">
                {(p) => (
                  <Input {...p} required value={name} onChange={(e) => setName(e.target.value)} placeholder="shopify-orders" data-testid="connection-name" />
                )}
              </Field>
              <Field label="Description" error={errors.description}>
                {(p) => <Input {...p} value={description} onChange={(e) => setDescription(e.target.value)} />}
              </Field>
            </div>
          </Card>
          <div className="grid grid-cols-1 gap-4 lg:grid-cols-2">
            <SourceCard draft={source} onChange={setSource} errors={errors} options={sources.data?.models} editing={editing} />
            <DestinationCard
              draft={destination}
              onChange={setDestination}
              errors={errors}
              options={destinations.data?.models}
              editing={editing}
              deliveryState={(existing.data?.destination as { delivery_state?: DeliveryState } | undefined)?.delivery_state}
              blocked={c && orderingOf(c) ? <BlockedKeys destinationId={c.destination.id} initial={orderingOf(c)?.blocked_keys ?? []} /> : undefined}
            />
          </div>
          <Card title="Rules" actions={<span className="text-xs text-zinc-600 dark:text-zinc-400">Filters and transformations run in this order</span>}>
            {errors.rules && <p className="mb-3 text-xs text-rose-700 dark:text-rose-300">{errors.rules}</p>}
            {rules.length === 0 && (
              <p className="mb-3 text-sm text-zinc-600 dark:text-zinc-400">
                No rules: every request is delivered as it came, with the default retries. Add a rule below.
              </p>
            )}
            <ol className="grid gap-3">
              {rules.map((r, i) => (
                <li key={r.key} className="rounded-md border border-zinc-200 p-3 dark:border-zinc-800" data-testid="rule" data-type={r.type}>
                  <div className="mb-2 flex flex-wrap items-center justify-between gap-2">
                    <h3 className="text-sm font-semibold capitalize">
                      {i + 1}. {r.type}
                    </h3>
                    <div className="flex gap-1">
                      <Button size="sm" variant="ghost" disabled={i === 0} onClick={() => setRules(move(rules, i, -1))} aria-label={`Move rule ${i + 1} up`}>
                        ↑
                      </Button>
                      <Button
                        size="sm"
                        variant="ghost"
                        disabled={i === rules.length - 1}
                        onClick={() => setRules(move(rules, i, 1))}
                        aria-label={`Move rule ${i + 1} down`}
                      >
                        ↓
                      </Button>
                      <Button size="sm" variant="ghost" onClick={() => setRules(rules.filter((x) => x.key !== r.key))} aria-label={`Remove rule ${i + 1}`}>
                        Remove
                      </Button>
                    </div>
                  </div>
                  <RuleFields
                    rule={r}
                    onChange={(n) => setRules(rules.map((x) => (x.key === r.key ? n : x)))}
                    transformations={transformations.data?.models ?? []}
                  />
                  {ruleErrors(i).map(([k, m]) => (
                    <p key={k} className="mt-2 text-xs text-rose-700 dark:text-rose-300">
                      {k.replace(`rules.${i}.`, "")}: {m}
                    </p>
                  ))}
                </li>
              ))}
            </ol>
            <div className="mt-3 flex flex-wrap gap-2" role="group" aria-label="Add a rule">
              {(["filter", "transform", "deduplicate", "delay", "retry"] as RuleType[]).map((t) => (
                <Button key={t} size="sm" onClick={() => setRules([...rules, newRule(t)])} data-testid={`add-rule-${t}`}>
                  + {t.charAt(0).toUpperCase() + t.slice(1)}
                </Button>
              ))}
            </div>
          </Card>
          <div className="flex justify-end gap-2">
            <Button type="submit" variant="primary" disabled={saving} data-testid="save-connection">
              {saving ? "Saving…" : editing ? "Save changes" : "Create connection"}
            </Button>
          </div>
        </div>
      </form>
      {c && <RecentEvents connectionId={c.id} />}
    </>
  );
}

/** The connection's latest events and their delivery status (refreshed every 5 seconds). */
function RecentEvents({ connectionId }: { connectionId: string }) {
  const events = useQuery({
    queryKey: ["connection-events", connectionId],
    queryFn: () => api<Paged<GatewayEvent>>(`events?webhook_id=${connectionId}&limit=10`),
    refetchInterval: 5_000,
  });
  return (
    <Card
      title="Latest events"
      className="mt-4"
      bodyClassName="p-0!"
      actions={
        <ButtonLink href={`/dashboard/events?webhook_id=${connectionId}`} size="sm" variant="ghost">
          All events
        </ButtonLink>
      }
    >
      <QueryView
        query={events}
        what="Events"
        inset
        isEmpty={(d) => d.models.length === 0}
        empty={<EmptyState title="No events yet">Send a request to the source URL above; it shows here with its delivery status within seconds.</EmptyState>}
      >
        {(d) => <EventsTable events={d.models} caption="Latest events" testId="connection-event" />}
      </QueryView>
    </Card>
  );
}

function move<T>(list: T[], i: number, by: number): T[] {
  const out = [...list];
  const [x] = out.splice(i, 1);
  out.splice(i + by, 0, x);
  return out;
}

function AuthFields({
  fields,
  values,
  onChange,
  errors,
  prefix,
}: {
  fields: string[];
  values: Record<string, string>;
  onChange: (v: Record<string, string>) => void;
  errors: Errors;
  prefix: string;
}) {
  return (
    <>
      {fields.map((f) => (
        <Field key={f} label={label(f)} error={errors[`${prefix}.${f}`]}>
          {(p) =>
            CHOICES[f] ? (
              <Select {...p} value={values[f] ?? CHOICES[f][0]} onChange={(e) => onChange({ ...values, [f]: e.target.value })}>
                {CHOICES[f].map((o) => (
                  <option key={o}>{o}</option>
                ))}
              </Select>
            ) : (
              <Input
                {...p}
                type={SECRET.test(f) ? "password" : "text"}
                autoComplete="off"
                value={values[f] ?? ""}
                onChange={(e) => onChange({ ...values, [f]: e.target.value })}
              />
            )
          }
        </Field>
      ))}
    </>
  );
}

function ModeSwitch({ mode, onChange, what }: { mode: "new" | "existing"; onChange: (m: "new" | "existing") => void; what: string }) {
  return (
    <div role="radiogroup" aria-label={`${what}: new or existing`} className="flex gap-4 text-sm">
      {(["new", "existing"] as const).map((m) => (
        <label key={m} className="inline-flex items-center gap-1.5">
          <input type="radio" name={`${what}-mode`} checked={mode === m} onChange={() => onChange(m)} className="accent-indigo-600" />
          {m === "new" ? `New ${what}` : `Existing ${what}`}
        </label>
      ))}
    </div>
  );
}

function SourceCard({
  draft: s,
  onChange,
  errors,
  options,
  editing,
}: {
  draft: SourceDraft;
  onChange: (s: SourceDraft) => void;
  errors: Errors;
  options?: Named[];
  editing: boolean;
}) {
  const type = findSourceType(s.type);
  const fields = generic(s.type) ? (GENERIC_SOURCE_AUTH[s.auth_type] ?? []) : (type?.authFields ?? []);
  return (
    <Card title={editing ? `Source: ${s.name}` : "Source"}>
      <div className="grid gap-3">
        {!editing && <ModeSwitch mode={s.mode} what="source" onChange={(mode) => onChange({ ...s, mode })} />}
        {s.mode === "existing" && !editing ? (
          <Field label="Source" error={errors.source_id ?? errors.source}>
            {(p) => (
              <Select {...p} value={s.id} onChange={(e) => onChange({ ...s, id: e.target.value })}>
                <option value="">Choose a source…</option>
                {options?.map((o) => (
                  <option key={o.id} value={o.id}>
                    {o.name}
                  </option>
                ))}
              </Select>
            )}
          </Field>
        ) : (
          <>
            {!editing && (
              <Field label="Source name" error={errors["source.name"] ?? errors.source} hint="Reused when a source of yours has this name.">
                {(p) => (
                  <Input {...p} value={s.name} onChange={(e) => onChange({ ...s, name: e.target.value })} placeholder="shopify" data-testid="source-name" />
                )}
              </Field>
            )}
            <Field label="Source type" error={errors["source.type"]}>
              {(p) => (
                <Select {...p} disabled={editing} value={s.type} onChange={(e) => onChange({ ...s, type: e.target.value, auth_type: "", auth: {} })}>
                  {listSourceTypes()
                    .filter((t) => !t.acceptedUntil)
                    .map((t) => (
                      <option key={t.type} value={t.type}>
                        {t.label}
                      </option>
                    ))}
                </Select>
              )}
            </Field>
            {generic(s.type) && (
              <Field label="Verification" error={errors["source.config.auth_type"]} hint="How Hookyard checks that a request really comes from the sender.">
                {(p) => (
                  <Select {...p} value={s.auth_type} onChange={(e) => onChange({ ...s, auth_type: e.target.value, auth: {} })}>
                    <option value="">None</option>
                    <option value="HMAC">HMAC signature</option>
                    <option value="BASIC_AUTH">Basic auth</option>
                    <option value="API_KEY">API key</option>
                  </Select>
                )}
              </Field>
            )}
            {!generic(s.type) && fields.length > 0 && (
              <p className="text-xs text-zinc-600 dark:text-zinc-400">
                {type?.label} signs its requests; give its credentials to verify them{type?.requiresAuth ? " (required)" : ""}.
              </p>
            )}
            <div className="grid gap-3 sm:grid-cols-2">
              <AuthFields fields={fields} values={s.auth} onChange={(auth) => onChange({ ...s, auth })} errors={errors} prefix="source.config.auth" />
            </div>
          </>
        )}
      </div>
    </Card>
  );
}

function DestinationCard({
  draft: d,
  onChange,
  errors,
  options,
  editing,
  deliveryState,
  blocked,
}: {
  draft: DestinationDraft;
  onChange: (d: DestinationDraft) => void;
  errors: Errors;
  options?: Named[];
  editing: boolean;
  /** The destination's receiver-driven limits (docs/pipeline.md "Receiver-driven limits"), when editing. */
  deliveryState?: DeliveryState;
  /** The saved ordered destination's blocked keys, when editing one. */
  blocked?: React.ReactNode;
}) {
  return (
    <Card title={editing ? `Destination: ${d.name}` : "Destination"} actions={editing ? <DeliveryStateBadges state={deliveryState} /> : undefined}>
      <div className="grid gap-3">
        {!editing && <ModeSwitch mode={d.mode} what="destination" onChange={(mode) => onChange({ ...d, mode })} />}
        {d.mode === "existing" && !editing ? (
          <Field label="Destination" error={errors.destination_id ?? errors.destination}>
            {(p) => (
              <Select {...p} value={d.id} onChange={(e) => onChange({ ...d, id: e.target.value })}>
                <option value="">Choose a destination…</option>
                {options?.map((o) => (
                  <option key={o.id} value={o.id}>
                    {o.name}
                  </option>
                ))}
              </Select>
            )}
          </Field>
        ) : (
          <>
            {!editing && (
              <Field label="Destination name" error={errors["destination.name"] ?? errors.destination}>
                {(p) => (
                  <Input
                    {...p}
                    value={d.name}
                    onChange={(e) => onChange({ ...d, name: e.target.value })}
                    placeholder="orders-service"
                    data-testid="destination-name"
                  />
                )}
              </Field>
            )}
            <Field label="Destination type" error={errors["destination.type"]}>
              {(p) => (
                <Select {...p} disabled={editing} value={d.type} onChange={(e) => onChange({ ...d, type: e.target.value })}>
                  <option value="HTTP">HTTP endpoint</option>
                  <option value="CLI">CLI (your machine, through hookyard listen)</option>
                  <option value="MOCK_API">Mock API (accepts everything)</option>
                </Select>
              )}
            </Field>
            {d.type === "CLI" && (
              <Field label="Path" error={errors["destination.config.path"]}>
                {(p) => <Input {...p} value={d.path} onChange={(e) => onChange({ ...d, path: e.target.value })} />}
              </Field>
            )}
            {d.type === "HTTP" && (
              <>
                <Field label="URL" error={errors["destination.config.url"]}>
                  {(p) => (
                    <Input
                      {...p}
                      type="url"
                      inputMode="url"
                      value={d.url}
                      onChange={(e) => onChange({ ...d, url: e.target.value })}
                      placeholder="https://example.com/webhooks"
                      data-testid="destination-url"
                    />
                  )}
                </Field>
                <div className="grid gap-3 sm:grid-cols-3">
                  <Field label="Method" error={errors["destination.config.http_method"]}>
                    {(p) => (
                      <Select {...p} value={d.http_method} onChange={(e) => onChange({ ...d, http_method: e.target.value })}>
                        <option value="">As received</option>
                        {["GET", "POST", "PUT", "PATCH", "DELETE"].map((m) => (
                          <option key={m}>{m}</option>
                        ))}
                      </Select>
                    )}
                  </Field>
                  <Field label="Rate limit" error={errors["destination.config.rate_limit"]} hint="Empty: no limit">
                    {(p) => (
                      <Input
                        {...p}
                        type="number"
                        min={1}
                        inputMode="numeric"
                        value={d.rate_limit}
                        onChange={(e) => onChange({ ...d, rate_limit: e.target.value })}
                      />
                    )}
                  </Field>
                  <Field label="Per" error={errors["destination.config.rate_limit_period"]}>
                    {(p) => (
                      <Select {...p} value={d.rate_limit_period} onChange={(e) => onChange({ ...d, rate_limit_period: e.target.value })}>
                        <option value="second">second</option>
                        <option value="minute">minute</option>
                        <option value="hour">hour</option>
                        <option value="concurrent">at once (concurrent)</option>
                      </Select>
                    )}
                  </Field>
                </div>
                <Field label="Authentication" error={errors["destination.config.auth_type"]}>
                  {(p) => (
                    <Select {...p} value={d.auth_type} onChange={(e) => onChange({ ...d, auth_type: e.target.value, auth: {} })}>
                      <option value="GATEWAY_SIGNATURE">Hookyard signature</option>
                      <option value="CUSTOM_SIGNATURE">Custom signature</option>
                      <option value="BASIC_AUTH">Basic auth</option>
                      <option value="API_KEY">API key</option>
                      <option value="BEARER_TOKEN">Bearer token</option>
                    </Select>
                  )}
                </Field>
                <div className="grid gap-3 sm:grid-cols-2">
                  <AuthFields
                    fields={DESTINATION_AUTH[d.auth_type] ?? []}
                    values={d.auth}
                    onChange={(auth) => onChange({ ...d, auth })}
                    errors={errors}
                    prefix="destination.config.auth"
                  />
                </div>
              </>
            )}
            <OrderingFields draft={d} onChange={onChange} errors={errors} />
            {blocked}
          </>
        )}
      </div>
    </Card>
  );
}

/** The destination's ordered delivery setting (docs/pipeline.md "Ordered delivery"): off or on, the key path, on exhaustion. */
function OrderingFields({ draft: d, onChange, errors }: { draft: DestinationDraft; onChange: (d: DestinationDraft) => void; errors: Errors }) {
  return (
    <fieldset className="grid gap-3 border-t border-zinc-200 pt-3 dark:border-zinc-800" data-testid="ordering-fields">
      <legend className="sr-only">Ordered delivery</legend>
      <Field label="Ordered delivery" error={errors["destination.ordering"]} hint="On: each key's events go one at a time, in the order they were accepted.">
        {(p) => (
          <Select {...p} value={d.ordered ? "on" : "off"} onChange={(e) => onChange({ ...d, ordered: e.target.value === "on" })} data-testid="ordering-mode">
            <option value="off">Off</option>
            <option value="on">On</option>
          </Select>
        )}
      </Field>
      {d.ordered && (
        <div className="grid gap-3 sm:grid-cols-2">
          <Field
            label="Ordering key"
            error={errors["destination.ordering.key"]}
            hint="A path into the event: body.customer_id or headers.x-key. Empty: the whole destination is one sequence."
          >
            {(p) => (
              <Input
                {...p}
                value={d.ordering_key}
                onChange={(e) => onChange({ ...d, ordering_key: e.target.value })}
                placeholder="body.customer_id"
                autoComplete="off"
                spellCheck={false}
                data-testid="ordering-key"
              />
            )}
          </Field>
          <Field
            label="When an event runs out of retries"
            error={errors["destination.ordering.on_exhausted"]}
            hint="Block: its key waits until you release it below."
          >
            {(p) => (
              <Select
                {...p}
                value={d.on_exhausted}
                onChange={(e) => onChange({ ...d, on_exhausted: e.target.value as DestinationDraft["on_exhausted"] })}
                data-testid="ordering-on-exhausted"
              >
                <option value="skip">Skip it: the next event goes</option>
                <option value="block">Block the key</option>
              </Select>
            )}
          </Field>
        </div>
      )}
    </fieldset>
  );
}

/**
 * The blocked keys of a saved ordered destination (re-read every 10 s) with Release per key and Release all
 * (`POST /destinations/{id}/ordering/release`). A release shows at once: the panel drops the released
 * entries, and the cached read is updated before it is read again.
 */
function BlockedKeys({ destinationId, initial }: { destinationId: string; initial: BlockedKey[] }) {
  const client = useQueryClient();
  const queryKey = ["destination-blocked-keys", destinationId];
  const read = useQuery({
    queryKey,
    queryFn: async () => (await api<{ ordering?: OrderingRead }>(`destinations/${destinationId}`)).ordering?.blocked_keys ?? [],
    initialData: initial,
    refetchInterval: 10_000,
  });
  async function release(keys?: string[]) {
    await api(`destinations/${destinationId}/ordering/release`, { method: "POST", body: keys ? { keys } : undefined });
    client.setQueryData<BlockedKey[]>(queryKey, (before) => (keys ? (before ?? []).filter((b) => !keys.includes(b.key)) : []));
    void client.invalidateQueries({ queryKey });
  }
  return (
    <section aria-labelledby={`blocked-${destinationId}`} className="grid gap-2 border-t border-zinc-200 pt-3 dark:border-zinc-800" data-testid="blocked-keys">
      <h3 id={`blocked-${destinationId}`} className="text-sm font-semibold">
        Blocked keys
      </h3>
      <OrderingPanel blockedKeys={read.data} onRelease={release} eventHref={(id) => `/dashboard/events?id=${encodeURIComponent(id)}`} />
    </section>
  );
}

function RuleFields({ rule: r, onChange, transformations }: { rule: RuleDraft; onChange: (r: RuleDraft) => void; transformations: Named[] }) {
  switch (r.type) {
    case "filter":
      return (
        <div className="grid gap-3 sm:grid-cols-2">
          <p className="text-xs text-zinc-600 sm:col-span-2 dark:text-zinc-400">
            JSON to match, e.g. <code>{`{"type": {"$startsWith": "order."}}`}</code>. Empty parts match everything.
          </p>
          <Field label="Body">{(p) => <Textarea {...p} code rows={3} value={r.body} onChange={(e) => onChange({ ...r, body: e.target.value })} />}</Field>
          <Field label="Headers">
            {(p) => <Textarea {...p} code rows={3} value={r.headers} onChange={(e) => onChange({ ...r, headers: e.target.value })} />}
          </Field>
          <Field label="Query">{(p) => <Textarea {...p} code rows={2} value={r.query} onChange={(e) => onChange({ ...r, query: e.target.value })} />}</Field>
          <Field label="Path">{(p) => <Textarea {...p} code rows={2} value={r.path} onChange={(e) => onChange({ ...r, path: e.target.value })} />}</Field>
        </div>
      );
    case "transform":
      return (
        <div className="grid gap-3">
          <div role="radiogroup" aria-label="Transformation: existing or new" className="flex gap-4 text-sm">
            {(["existing", "new"] as const).map((m) => (
              <label key={m} className="inline-flex items-center gap-1.5">
                <input
                  type="radio"
                  name={`transform-${r.key}`}
                  checked={r.mode === m}
                  onChange={() => onChange({ ...r, mode: m })}
                  className="accent-indigo-600"
                />
                {m === "existing" ? "Existing transformation" : "New transformation"}
              </label>
            ))}
          </div>
          {r.mode === "existing" ? (
            <div className="flex flex-col gap-2 sm:flex-row sm:items-end">
              <Field label="Transformation" className="flex-1">
                {(p) => (
                  <Select {...p} value={r.transformation_id} onChange={(e) => onChange({ ...r, transformation_id: e.target.value })}>
                    <option value="">Choose…</option>
                    {transformations.map((t) => (
                      <option key={t.id} value={t.id}>
                        {t.name}
                      </option>
                    ))}
                  </Select>
                )}
              </Field>
              {r.transformation_id && (
                <ButtonLink href={`/dashboard/connections/transformations?id=${r.transformation_id}`} size="md">
                  Open in editor
                </ButtonLink>
              )}
            </div>
          ) : (
            <>
              <Field label="Transformation name">{(p) => <Input {...p} value={r.name} onChange={(e) => onChange({ ...r, name: e.target.value })} />}</Field>
              <Field label="Code" hint="Test it against a sample request in the Transformations editor.">
                {(p) => <CodeEditor {...p} label="Code" rows={7} value={r.code} onChange={(code) => onChange({ ...r, code })} />}
              </Field>
            </>
          )}
        </div>
      );
    case "deduplicate":
      return (
        <div className="grid gap-3 sm:grid-cols-3">
          <Field label="Window (seconds)" hint="1 to 3600">
            {(p) => <Input {...p} type="number" min={1} max={3600} value={r.window} onChange={(e) => onChange({ ...r, window: e.target.value })} />}
          </Field>
          <Field label="Compare only these fields" hint="e.g. body.id, comma separated">
            {(p) => <Input {...p} value={r.include} onChange={(e) => onChange({ ...r, include: e.target.value })} />}
          </Field>
          <Field label="Ignore these fields" hint="e.g. headers.date">
            {(p) => <Input {...p} value={r.exclude} onChange={(e) => onChange({ ...r, exclude: e.target.value })} />}
          </Field>
        </div>
      );
    case "delay":
      return (
        <Field label="Delay (ms)" className="sm:w-48">
          {(p) => <Input {...p} type="number" min={0} value={r.delay} onChange={(e) => onChange({ ...r, delay: e.target.value })} />}
        </Field>
      );
    case "retry":
      return (
        <div className="grid gap-3 sm:grid-cols-4">
          <Field label="Strategy">
            {(p) => (
              <Select {...p} value={r.strategy} onChange={(e) => onChange({ ...r, strategy: e.target.value })}>
                <option value="exponential">exponential</option>
                <option value="linear">linear</option>
              </Select>
            )}
          </Field>
          <Field label="Retries" hint="0 to 50">
            {(p) => <Input {...p} type="number" min={0} max={50} value={r.count} onChange={(e) => onChange({ ...r, count: e.target.value })} />}
          </Field>
          <Field label="Interval (ms)">
            {(p) => <Input {...p} type="number" min={0} value={r.interval} onChange={(e) => onChange({ ...r, interval: e.target.value })} />}
          </Field>
          <Field label="On status codes" hint="e.g. 500-599, 429">
            {(p) => <Input {...p} value={r.codes} onChange={(e) => onChange({ ...r, codes: e.target.value })} />}
          </Field>
        </div>
      );
  }
}
