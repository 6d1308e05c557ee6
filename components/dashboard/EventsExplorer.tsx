"use client";

import type { GatewayEvent } from "@/components/dashboard/api";
import { EventDetail } from "@/components/dashboard/EventDetail";
import { Explorer } from "@/components/dashboard/Explorer";
import { EXPLORER_PAGES } from "@/components/dashboard/explorer-query";
import { useNames } from "@/components/dashboard/filters";
import { NameOrId } from "@/components/dashboard/OtherExplorers";
import { Age, MethodPath, Response, Topic, topicOf } from "@/components/dashboard/rows";
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
        { header: "Status", cell: (e) => <StatusBadge status={e.status} />, width: "6.5rem" },
        { header: "Request", cell: (e) => <MethodPath method={e.data?.method} path={e.data?.path} query={e.data?.query} />, width: "2fr" },
        { header: "Topic", cell: (e) => <Topic topic={topicOf(e.data?.headers, e.data?.body)} />, from: "sm" },
        { header: "Response", cell: (e) => <Response status={e.response_status} errorCode={e.error_code} />, width: "4.5rem" },
        { header: "Connection", cell: (e) => <NameOrId names={names} id={e.webhook_id} />, from: "xl" },
        { header: "Age", cell: (e) => <Age iso={e.created_at} />, width: "5rem" },
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
