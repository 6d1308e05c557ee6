"use client";
/**
 * One destination: its state (enable, disable, delete with confirmation), the delivery chart, the
 * signing secret (reveal, copy, rotate with a chosen overlap; an ed25519 destination's public key instead), its settings (the type's schema form, prefilled; PATCH),
 * its events and attempts (components/portal/Activity.tsx), its transformation (components/portal/TransformationPanel.tsx)
 * and its ordered delivery (components/portal/OrderingPanel.tsx).
 */
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useRouter, useSearchParams } from "next/navigation";
import { useMemo, useState } from "react";
import { Activity } from "@/components/portal/Activity";
import {
  api,
  ApiError,
  type Destination,
  type DestinationType,
  useDestination,
  useDestinations,
  useDestinationsPath,
  useDestinationTypes,
  useTopics,
} from "@/components/portal/api";
import { DeliveryChart } from "@/components/portal/DeliveryChart";
import { topicsText } from "@/components/portal/DestinationList";
import { sectionsOf } from "@/components/portal/NewDestination";
import { TransformationPanel } from "@/components/portal/TransformationPanel";
import { OrderingPanel } from "@/components/portal/OrderingPanel";
import { TopicsField, topicsOf, type TopicsValue, topicsValueOf } from "@/components/portal/TopicsField";
import { BackLink, Button } from "@/components/ui/Button";
import { Card, CardHeader, Skeleton } from "@/components/ui/Card";
import { ConfirmDialog } from "@/components/ui/ConfirmDialog";
import { CopyButton } from "@/components/ui/CopyButton";
import { OVERLAP_CHOICES, OverlapSelect } from "@/components/ui/OverlapSelect";
import { EnabledBadge, ErrorNotice, TypeIcon, When } from "@/components/portal/ui";
import { SchemaForm } from "@/components/ui/SchemaForm";
import { DeliveryStateBadges } from "@/components/ui/DeliveryStateBadges";
import { HealthBadge, HealthLine } from "@/components/ui/HealthBadge";

function useDestinationUpdate(id: string) {
  const path = `${useDestinationsPath()}/${encodeURIComponent(id)}`;
  const client = useQueryClient();
  return (method: string, suffix = "") =>
    ({
      mutationFn: (body?: unknown) => api<Destination>(`${path}${suffix}`, { method, body }),
      onSuccess: (d: Destination | { success: boolean }) => {
        if ("id" in d) client.setQueryData(["portal", "destinations", id], d);
        void client.invalidateQueries({ queryKey: ["portal", "destinations"], exact: true });
      },
    }) as const;
}

export function DestinationDetail({ id }: { id: string }) {
  const q = useDestination(id);
  const types = useDestinationTypes();
  const created = useSearchParams().get("created") === "1";
  if (q.isPending)
    return (
      <Card bodyClassName="p-0">
        <Skeleton />
      </Card>
    );
  if (q.isError)
    return (
      <div className="space-y-4">
        <BackLink href="/portal">Destinations</BackLink>
        <ErrorNotice error={q.error} what="This destination" retry={() => q.refetch()} />
      </div>
    );
  const d = q.data;
  const type = types.data?.find((t) => t.type === d.type);
  return (
    <div className="space-y-6">
      <BackLink href="/portal">Destinations</BackLink>
      {created && (
        <p
          role="status"
          className="rounded-md border border-emerald-300 bg-emerald-50 px-4 py-2.5 text-sm text-emerald-900 dark:border-emerald-900 dark:bg-emerald-950/60 dark:text-emerald-200"
        >
          Destination created. Events on its topics are delivered to it from now on.
        </p>
      )}
      <Header d={d} type={type} />
      <DeliveryChart destinationId={d.id} />
      {d.credentials.secret !== undefined && type?.credential_fields.some((f) => f.key === "secret" && !f.sensitive) && <SecretPanel d={d} />}
      <Activity destination={d} />
      <TransformationPanel d={d} />
      <OrderingPanel d={d} />
      {type && <SettingsPanel d={d} type={type} />}
    </div>
  );
}

function Header({ d, type }: { d: Destination; type: DestinationType | undefined }) {
  const router = useRouter();
  const client = useQueryClient();
  const update = useDestinationUpdate(d.id);
  const toggle = useMutation(update("PUT", d.disabled_at ? "/enable" : "/disable"));
  const remove = useMutation({
    ...update("DELETE"),
    onSuccess: () => {
      // The list is cached (this page reads its health from it): drop the destination from it before going back.
      client.setQueryData<Destination[]>(["portal", "destinations"], (list) => list?.filter((x) => x.id !== d.id));
      void client.invalidateQueries({ queryKey: ["portal", "destinations"], exact: true });
      router.push("/portal");
    },
  });
  const [confirm, setConfirm] = useState(false);
  // The delivery health comes with the list (`include=health`), which the portal keeps fresh anyway.
  const health = useDestinations().data?.find((x) => x.id === d.id)?.health;
  return (
    <div className="flex flex-wrap items-start justify-between gap-4">
      <div className="flex min-w-0 items-start gap-3">
        <span className="grid size-11 shrink-0 place-items-center rounded-lg bg-zinc-100 text-zinc-700 dark:bg-zinc-800 dark:text-zinc-300">
          <TypeIcon svg={type?.icon} className="size-6" />
        </span>
        <div className="min-w-0">
          <h1 className="break-all font-mono text-lg font-semibold tracking-tight sm:text-xl">{d.target || d.id}</h1>
          <p className="mt-1 flex flex-wrap items-center gap-x-2 gap-y-1 text-sm text-zinc-600 dark:text-zinc-400">
            <EnabledBadge disabledAt={d.disabled_at} />
            {!d.disabled_at && <HealthBadge health={health} />}
            <DeliveryStateBadges state={d.delivery_state} />
            <span>{type?.label ?? d.type}</span>
            <span aria-hidden>·</span>
            <span>{topicsText(d.topics)}</span>
          </p>
          <p className="mt-1 text-xs text-zinc-600 dark:text-zinc-400">
            <span className="font-mono">{d.id}</span> · Created <When iso={d.created_at} />
          </p>
          <HealthLine health={health} className="mt-1 block text-xs text-zinc-600 dark:text-zinc-400" />
        </div>
      </div>
      <div className="flex flex-wrap gap-2">
        <Button variant="secondary" disabled={toggle.isPending} onClick={() => toggle.mutate(undefined)}>
          {d.disabled_at ? "Enable" : "Disable"}
        </Button>
        <Button variant="dangerOutline" onClick={() => setConfirm(true)}>
          Delete
        </Button>
      </div>
      {toggle.isError && (
        <p role="alert" className="w-full text-sm text-red-700 dark:text-red-400">
          Could not {d.disabled_at ? "enable" : "disable"} the destination: {toggle.error.message}
        </p>
      )}
      <ConfirmDialog
        open={confirm}
        title="Delete this destination?"
        confirmLabel="Delete destination"
        danger
        pending={remove.isPending}
        error={remove.isError ? `Not deleted: ${remove.error.message}` : null}
        onConfirm={() => remove.mutate(undefined)}
        onCancel={() => setConfirm(false)}
      >
        <p>
          Events will no longer be sent to <span className="break-all font-mono">{d.target || d.id}</span>. Its past attempts stay in your history. This cannot
          be undone.
        </p>
      </ConfirmDialog>
    </div>
  );
}

function SecretPanel({ d }: { d: Destination }) {
  const update = useDestinationUpdate(d.id);
  const rotate = useMutation(update("PATCH"));
  const [shown, setShown] = useState(false);
  const [confirm, setConfirm] = useState(false);
  const [overlap, setOverlap] = useState(86_400);
  const secret = d.credentials.secret ?? "";
  const publicKey = d.credentials.public_key;
  const previousUntil = d.credentials.previous_secret_invalid_at;
  const chosen = OVERLAP_CHOICES.find((c) => c.seconds === overlap);
  return (
    <Card bodyClassName="p-0">
      <CardHeader
        title="Signing secret"
        description={
          publicKey
            ? "Deliveries are signed with an ed25519 key only we hold: verify them with this public key (v1a signatures)."
            : "Use it to verify that deliveries come from us: each request is signed with it."
        }
      />
      <div className="space-y-3 p-4 sm:p-5">
        {publicKey ? (
          <div className="flex flex-wrap items-center gap-2">
            <code
              data-testid="public-key-value"
              className="min-w-0 basis-full break-all sm:basis-0 sm:flex-1 rounded-md bg-zinc-100 px-3 py-2 font-mono text-sm text-zinc-900 dark:bg-zinc-800 dark:text-zinc-100"
            >
              {publicKey}
            </code>
            <CopyButton value={publicKey} label="Copy" title="Copy the public key" size="md" />
            <Button variant="secondary" onClick={() => setConfirm(true)}>
              Rotate
            </Button>
          </div>
        ) : (
          <div className="flex flex-wrap items-center gap-2">
            <code
              data-testid="secret-value"
              className="min-w-0 basis-full break-all sm:basis-0 sm:flex-1 rounded-md bg-zinc-100 px-3 py-2 font-mono text-sm text-zinc-900 dark:bg-zinc-800 dark:text-zinc-100"
            >
              {shown ? secret : `${secret.slice(0, 6)}${"•".repeat(24)}`}
            </code>
            <Button variant="secondary" aria-pressed={shown} onClick={() => setShown((s) => !s)}>
              {shown ? "Hide" : "Reveal"}
            </Button>
            <CopyButton value={secret} label="Copy" title="Copy the signing secret" size="md" />
            <Button variant="secondary" onClick={() => setConfirm(true)}>
              Rotate
            </Button>
          </div>
        )}
        <p className="text-xs text-zinc-600 dark:text-zinc-400" aria-live="polite">
          {previousUntil ? (
            <>
              The previous {publicKey ? "key" : "secret"} keeps signing alongside this one until <When iso={previousUntil} />.
            </>
          ) : (
            "Rotating creates a new secret; you choose how long the old one stays valid so you can update your endpoint."
          )}
        </p>
      </div>
      <ConfirmDialog
        open={confirm}
        title="Rotate the signing secret?"
        confirmLabel="Rotate secret"
        confirmVariant="brand"
        pending={rotate.isPending}
        error={rotate.isError ? `Not rotated: ${rotate.error.message}` : null}
        onConfirm={() =>
          rotate.mutate(
            { credentials: { rotate_secret: true, rotate_secret_overlap_seconds: overlap } },
            { onSuccess: () => (setConfirm(false), setShown(true)) },
          )
        }
        onCancel={() => setConfirm(false)}
      >
        <div className="space-y-3">
          <OverlapSelect value={overlap} onChange={setOverlap} />
          <p>
            A new {publicKey ? "key" : "secret"} is created now.{" "}
            {overlap === 0
              ? "The old one stops signing at once."
              : `Deliveries carry signatures of both for the next ${chosen?.label ?? `${overlap} seconds`}, then only the new one.`}
          </p>
        </div>
      </ConfirmDialog>
    </Card>
  );
}

function SettingsPanel({ d, type }: { d: Destination; type: DestinationType }) {
  const update = useDestinationUpdate(d.id);
  const save = useMutation(update("PATCH"));
  const available = useTopics().data ?? [];
  const [topics, setTopics] = useState<TopicsValue>(() => topicsValueOf(d.topics));
  const [topicsError, setTopicsError] = useState<string>();
  const sections = useMemo(() => sectionsOf(type), [type]);
  const err = save.error instanceof ApiError ? save.error : null;
  return (
    <Card bodyClassName="p-0">
      <CardHeader title="Settings" description={`Change where and what this ${type.label.toLowerCase()} destination receives. The type cannot be changed.`} />
      <div className="p-4 sm:p-5">
        {save.isSuccess && !save.isPending && (
          <p role="status" className="mb-4 text-sm font-medium text-emerald-800 dark:text-emerald-300">
            Settings saved.
          </p>
        )}
        <SchemaForm
          key={d.updated_at}
          sections={sections}
          initial={{ config: d.config, credentials: d.credentials }}
          keepSensitive
          emptyAs="null"
          submitLabel="Save settings"
          pending={save.isPending}
          serverErrors={err?.messages}
          formError={save.error ? `Not saved: ${err?.status === 422 ? "fix the fields marked below." : save.error.message}` : null}
          validateExtra={() => {
            const t = topicsOf(topics, available);
            setTopicsError("error" in t ? t.error : undefined);
            return "error" in t ? [t.error] : [];
          }}
          onSubmit={(values) => {
            const t = topicsOf(topics, available);
            if ("error" in t) return;
            const credentials = Object.fromEntries(Object.entries(values.credentials ?? {}).filter(([, v]) => v !== null));
            save.mutate({ topics: t.topics, config: values.config, ...(Object.keys(credentials).length ? { credentials } : {}) });
          }}
        >
          <TopicsField value={topics} onChange={setTopics} error={topicsError} />
        </SchemaForm>
      </div>
    </Card>
  );
}
