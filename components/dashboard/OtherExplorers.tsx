"use client";

import { RelativeTime } from "@/components/ui/Time";
import type { Attempt } from "@/components/dashboard/api";
import { Explorer } from "@/components/dashboard/Explorer";
import { useNames } from "@/components/dashboard/filters";
import { RecordDetail } from "@/components/dashboard/RecordDetail";
import { Badge, StatusBadge } from "@/components/ui/Badge";

type RequestRow = {
  id: string;
  source_id: string;
  rejection_cause: string | null;
  verified: boolean | null;
  events_count: number;
  ignored_count: number;
  created_at: string;
};

/** /dashboard/requests: what the team's sources received, with "Retry all N matching". */
export function RequestsExplorer() {
  const names = useNames("sources");
  return (
    <Explorer<RequestRow>
      kind="requests"
      title="Requests"
      description="Everything your sources received, as ingestion stored it."
      path="requests"
      bulk={{ family: "requests.retry", path: "requests/retry", verb: "Retry" }}
      empty="Requests appear when a source's URL receives one. Create a source and send it a webhook."
      columns={[
        { header: "Status", cell: (r) => (r.rejection_cause ? <Badge tone="warning">{r.rejection_cause}</Badge> : <Badge tone="success">accepted</Badge>) },
        { header: "Request", cell: (r) => <span className="font-mono text-xs">{r.id}</span> },
        { header: "Source", cell: (r) => <NameOrId names={names} id={r.source_id} />, className: "hidden md:table-cell" },
        { header: "Events", cell: (r) => r.events_count, className: "tabular-nums" },
        { header: "Received", cell: (r) => <RelativeTime iso={r.created_at} /> },
      ]}
      detail={(id, close) => <RecordDetail key={id} path="requests" id={id} onClose={close} />}
    />
  );
}

/** /dashboard/attempts: every delivery attempt with its response. */
export function AttemptsExplorer() {
  const names = useNames("destinations");
  return (
    <Explorer<Attempt & { destination_id: string }>
      kind="attempts"
      title="Attempts"
      description="Every delivery made to a destination, with its response."
      path="attempts"
      empty="Attempts are recorded when events are delivered. Connect a source to a destination and send it a request."
      columns={[
        { header: "Status", cell: (a) => <StatusBadge status={a.status} /> },
        { header: "Attempt", cell: (a) => <span className="font-mono text-xs">{a.id}</span> },
        { header: "Response", cell: (a) => <span className="font-mono">{a.response_status ?? a.error_code ?? "—"}</span> },
        { header: "Destination", cell: (a) => <NameOrId names={names} id={a.destination_id} />, className: "hidden lg:table-cell" },
        { header: "Trigger", cell: (a) => <span className="text-xs">{a.trigger}</span>, className: "hidden md:table-cell" },
        { header: "Latency", cell: (a) => (a.response_latency != null ? `${a.response_latency} ms` : "—"), className: "tabular-nums" },
        { header: "At", cell: (a) => <RelativeTime iso={a.created_at} /> },
      ]}
      detail={(id, close) => <RecordDetail key={id} path="attempts" id={id} onClose={close} />}
    />
  );
}

/** A record's name when the team's list has it (its id on hover), else the bare id. */
export function NameOrId({ names, id }: { names: Map<string, string>; id: string }) {
  const name = names.get(id);
  return name ? (
    <span className="text-xs" title={id}>
      {name}
    </span>
  ) : (
    <span className="font-mono text-xs">{id}</span>
  );
}
