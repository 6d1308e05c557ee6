"use client";

import type { GatewayEvent } from "@/components/dashboard/api";
import { EventDetail } from "@/components/dashboard/EventDetail";
import { Explorer } from "@/components/dashboard/Explorer";
import { EXPLORER_PAGES } from "@/components/dashboard/explorer-query";
import { useNames } from "@/components/dashboard/filters";
import { NameOrId } from "@/components/dashboard/OtherExplorers";
import { Age, MethodPath, Topic, topicOf } from "@/components/dashboard/rows";
import { StatusBadge } from "@/components/ui/Badge";

/** /dashboard/events: the team's events with the list filters and search, details beside the list, and "Retry all N matching". */
export function EventsExplorer() {
  const names = useNames("connections");
  return (
    <Explorer<GatewayEvent>
      {...EXPLORER_PAGES["/dashboard/events"]}
      title="Events"
      description="Every delivery of a request to a destination. Select one for its data and attempts."
      bulk={{ family: "events.retry", path: "events/retry", verb: "Retry" }}
      empty="Events appear when a source with a connection receives a request. Send one to a source's URL."
      columns={[
        { header: "Status", cell: (e) => <StatusBadge status={e.status} /> },
        { header: "Request", cell: (e) => <MethodPath method={e.data?.method} path={e.data?.path} query={e.data?.query} /> },
        { header: "Topic", cell: (e) => <Topic topic={topicOf(e.data?.headers, e.data?.body)} />, className: "hidden sm:table-cell" },
        { header: "Response", cell: (e) => <span className="font-mono text-xs">{e.response_status ?? e.error_code ?? "—"}</span> },
        { header: "Connection", cell: (e) => <NameOrId names={names} id={e.webhook_id} />, className: "hidden xl:table-cell" },
        { header: "Age", cell: (e) => <Age iso={e.created_at} /> },
      ]}
      detailTitle={(id) => (
        <>
          Event <span className="font-mono font-normal">{id}</span>
        </>
      )}
      detail={(id) => <EventDetail key={id} id={id} />}
    />
  );
}
