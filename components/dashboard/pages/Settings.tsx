"use client";

import { useMutation, useQuery } from "@tanstack/react-query";
import { api } from "@/components/dashboard/api";
import { type Json, Secret, TeamCard } from "@/components/dashboard/pages/Teams";
import { Button } from "@/components/ui/Button";
import { Card } from "@/components/ui/Card";
import { useConfirm } from "@/components/ui/ConfirmDialog";
import { ErrorMessage } from "@/components/ui/EmptyState";
import { KeyValueTable } from "@/components/ui/KeyValueTable";
import { Notice } from "@/components/ui/Notice";
import { PageHeader } from "@/components/ui/PageHeader";
import type { ownTeam } from "@/lib/dashboard/teams-admin";

/** The Settings page's endpoints (docs/dashboard.md "Settings"): the signed-in user's own team only. */
const SETTINGS = "/dashboard/api/settings";

type SettingsView = {
  team: Json<Awaited<ReturnType<typeof ownTeam>>>;
  operator: boolean;
  outbound?: Record<string, string>;
  portal?: { organization_name: string; brand_color: string; logo_url: string | null };
};

/**
 * The Settings page: the user's team's API keys and dashboard users (create, revoke, add), its CLI key
 * (replaced, shown once), and for operators the outbound settings and portal branding, read-only.
 */
export function Settings() {
  const q = useQuery({ queryKey: ["settings"], queryFn: () => api<SettingsView>(SETTINGS) });
  const cliKey = useMutation({ mutationFn: () => api<{ cli_key: string }>(`${SETTINGS}/cli-key`, { method: "POST" }) });
  const { dialog, confirm } = useConfirm();
  if (q.error) return <ErrorMessage title="Settings could not be loaded" error={q.error} onRetry={() => q.refetch()} />;
  const s = q.data;
  return (
    <>
      <PageHeader
        title="Settings"
        description="Your team's API keys, dashboard users and CLI key; for operators, the outbound service and the portal's look."
      />
      {dialog}
      {!s ? (
        <div role="status" className="h-40 animate-pulse rounded-lg bg-zinc-100 dark:bg-zinc-800/60" aria-label="Loading" />
      ) : (
        <div className="flex flex-col gap-4">
          <TeamCard team={s.team} base={SETTINGS} queryKey={["settings"]} canMakeOperators={s.operator} />
          <Card title="CLI key" titleId="settings-cli-key" data-testid="cli-key-card">
            <p className="text-sm text-zinc-700 dark:text-zinc-300">
              <code className="font-mono text-xs">hookyard listen --cli-key …</code> forwards your team&apos;s events to a local server. Only the key&apos;s
              hash is stored, so it cannot be shown again: replace it to get a new one (the old one stops working at once).
            </p>
            <Button
              className="mt-3"
              disabled={cliKey.isPending}
              data-testid="replace-cli-key"
              onClick={() =>
                confirm({
                  title: "Replace the CLI key?",
                  body: "Running `hookyard listen` sessions with the old key stop at once.",
                  confirmLabel: "Replace CLI key",
                  onConfirm: () => cliKey.mutate(),
                })
              }
            >
              {cliKey.isPending ? "Replacing…" : "Replace CLI key"}
            </Button>
            {cliKey.error && <ErrorMessage title="The CLI key was not replaced" error={cliKey.error} />}
            {cliKey.data && (
              <Notice tone="info" role="status" className="mt-3" data-testid="new-cli-key">
                <p>The new CLI key is shown this once:</p>
                <Secret label="CLI key" value={cliKey.data.cli_key} testId="new-cli-key-value" />
              </Notice>
            )}
          </Card>
          {s.outbound && (
            <Card title="Outbound settings" titleId="settings-outbound" data-testid="outbound-settings" bodyClassName="p-0">
              <p className="px-4 pt-3 text-sm text-zinc-700 dark:text-zinc-300">
                Read-only here: change them with <code className="font-mono text-xs">PATCH /outbound/2025-07-01/config</code> (docs/outbound.md).
              </p>
              <KeyValueTable rows={Object.entries(s.outbound)} emptyText="No settings." nameLabel="Setting" />
            </Card>
          )}
          {s.portal && (
            <Card title="Portal branding" titleId="settings-portal" data-testid="portal-branding" bodyClassName="p-0">
              <p className="px-4 pt-3 text-sm text-zinc-700 dark:text-zinc-300">
                Read-only here: set by <code className="font-mono text-xs">PORTAL_ORGANIZATION_NAME</code>,{" "}
                <code className="font-mono text-xs">PORTAL_BRAND_COLOR</code> and <code className="font-mono text-xs">PORTAL_LOGO_URL</code> (docs/portal.md).
              </p>
              <KeyValueTable
                rows={[
                  ["Organization name", s.portal.organization_name || "(none: “Event destinations”)"],
                  ["Brand colour", s.portal.brand_color],
                  ["Logo URL", s.portal.logo_url ?? "(none: the name's first letter)"],
                ]}
                emptyText=""
                nameLabel="Setting"
              />
            </Card>
          )}
        </div>
      )}
    </>
  );
}
