"use client";

import type { Attempt } from "@/components/dashboard/api";
import { Explorer } from "@/components/dashboard/Explorer";
import { EXPLORER_PAGES } from "@/components/dashboard/explorer-query";
import { useNames } from "@/components/dashboard/filters";
import { AttemptDetail, RequestDetail, type RequestModel } from "@/components/dashboard/RecordDetail";
import { Age, MethodPath, Response, Topic, topicOf } from "@/components/dashboard/rows";
import { StatusBadge } from "@/components/ui/Badge";
import { formatDuration } from "@/components/ui/format";

/** /dashboard/requests: what the team's sources received, with search, details beside the list and "Retry all N matching". */
export function RequestsExplorer() {
  const names = useNames("sources");
  return (
    <Explorer<RequestModel>
      {...EXPLORER_PAGES["/dashboard/requests"]}
      title="Requests"
      description="Everything your sources received, as ingestion stored it."
      bulk={{ family: "requests.retry", path: "requests/retry", verb: "Retry" }}
      empty="Requests appear when a source's URL receives one. Create a source and send it a webhook."
      columns={[
        {
          header: "Status",
          cell: (r) => <StatusBadge status={r.rejection_cause ?? "ACCEPTED"} tone={r.rejection_cause ? "warning" : "success"} />,
          width: "10.5rem",
        },
        { header: "Request", cell: (r) => <MethodPath method={r.data?.method} path={r.data?.path} query={r.data?.query} />, width: "2fr" },
        { header: "Topic", cell: (r) => <Topic topic={topicOf(r.data?.headers, r.data?.body)} />, from: "sm" },
        { header: "Source", cell: (r) => <NameOrId names={names} id={r.source_id} />, from: "lg" },
        { header: "Events", cell: (r) => r.events_count, className: "tabular-nums", width: "4.5rem", from: "md" },
        { header: "Age", cell: (r) => <Age iso={r.created_at} />, width: "5rem" },
      ]}
      detailTitle={(id) => (
        <>
          Request <span className="font-mono font-normal">{id}</span>
        </>
      )}
      detail={(id) => <RequestDetail key={id} id={id} />}
    />
  );
}

/** /dashboard/attempts: every delivery attempt with its response, details beside the list. */
export function AttemptsExplorer() {
  const names = useNames("destinations");
  return (
    <Explorer<Attempt>
      {...EXPLORER_PAGES["/dashboard/attempts"]}
      title="Attempts"
      description="Every delivery made to a destination, with its response."
      empty="Attempts are recorded when events are delivered. Connect a source to a destination and send it a request."
      columns={[
        { header: "Status", cell: (a) => <StatusBadge status={a.status} />, width: "6.5rem" },
        { header: "Method", cell: (a) => <span className="font-mono text-xs font-semibold">{a.http_method ?? "—"}</span>, width: "5rem", from: "sm" },
        { header: "Response", cell: (a) => <Response status={a.response_status} errorCode={a.error_code} /> },
        { header: "Destination", cell: (a) => <NameOrId names={names} id={a.destination_id} />, from: "lg" },
        { header: "Trigger", cell: (a) => <span className="text-xs">{a.trigger}</span>, width: "6.5rem", from: "md" },
        { header: "Latency", cell: (a) => formatDuration(a.response_latency), className: "text-xs tabular-nums", width: "5rem" },
        { header: "Age", cell: (a) => <Age iso={a.created_at} />, width: "5rem" },
      ]}
      detailTitle={(id) => (
        <>
          Attempt <span className="font-mono font-normal">{id}</span>
        </>
      )}
      detail={(id) => <AttemptDetail key={id} id={id} />}
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
