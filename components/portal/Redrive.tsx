"use client";
/**
 * `/portal/redrive`: the tenant redrives its own failed deliveries; `/portal/archive-replay` (`kind="archive"`):
 * it replays its own archived events to one of its destinations and sees its past replays (docs/portal.md
 * "What a tenant can do").
 */
import { RedrivePanel } from "@/components/outbound/RedrivePanel";
import { api, useDestinations } from "@/components/portal/api";
import { BackLink } from "@/components/ui/Button";

const TEXT = {
  redrive: {
    title: "Redrive failed deliveries",
    intro:
      "Send every event whose last delivery attempt failed once more, for example after your endpoint was down. Plan first: you see how many deliveries it covers.",
  },
  archive: {
    title: "Replay from archive",
    intro:
      "Send your older events again, from days kept in the archive, to one of your destinations: each arrives as a new event marked as a replay. Plan first: you see what the archived days hold.",
  },
};

export function Redrive({ kind = "redrive" }: { kind?: "redrive" | "archive" }) {
  const destinations = useDestinations();
  return (
    <div className="space-y-6">
      <BackLink href="/portal">All destinations</BackLink>
      <div>
        <h1 className="text-2xl font-semibold tracking-tight">{TEXT[kind].title}</h1>
        <p className="mt-1 text-sm text-zinc-600 dark:text-zinc-400">{TEXT[kind].intro}</p>
      </div>
      <RedrivePanel call={api} base="" kind={kind} destinations={(destinations.data ?? []).map((d) => ({ id: d.id, label: d.target || d.id }))} />
    </div>
  );
}
