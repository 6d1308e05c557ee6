"use client";

import { RelativeTime } from "@/components/ui/Time";
import type { GatewayEvent } from "@/components/dashboard/api";
import { EventDetail } from "@/components/dashboard/EventDetail";
import { Explorer } from "@/components/dashboard/Explorer";
import { useNames } from "@/components/dashboard/filters";
import { NameOrId } from "@/components/dashboard/OtherExplorers";
import { StatusBadge } from "@/components/ui/Badge";

/** /dashboard/events: the team's events with the list filters, details, and "Retry all N matching". */
export function EventsExplorer() {
  const names = useNames("connections");
  return (
    <Explorer<GatewayEvent>
      kind="events"
      title="Events"
      description="Every delivery of a request to a destination. Select one for its data and attempts."
      path="events"
      bulk={{ family: "events.retry", path: "events/retry", verb: "Retry" }}
      empty="Events appear when a source with a connection receives a request. Send one to a source's URL."
      columns={[
        { header: "Status", cell: (e) => <StatusBadge status={e.status} /> },
        { header: "Event", cell: (e) => <span className="font-mono text-xs">{e.id}</span> },
        { header: "Response", cell: (e) => <span className="font-mono">{e.response_status ?? e.error_code ?? "—"}</span> },
        { header: "Attempts", cell: (e) => e.attempts, className: "hidden tabular-nums sm:table-cell" },
        { header: "Connection", cell: (e) => <NameOrId names={names} id={e.webhook_id} />, className: "hidden md:table-cell" },
        { header: "Created", cell: (e) => <RelativeTime iso={e.created_at} /> },
      ]}
      detail={(id, close) => <EventDetail key={id} id={id} onClose={close} />}
    />
  );
}
