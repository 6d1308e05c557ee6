"use client";
/**
 * A destination's transformation in the portal (docs/outbound.md "Transformations"): the code in the
 * kit's editor, a test run against an event id or sample data (`POST …/transformation/test`) showing the
 * output request, the console and the error, and Save / Remove. What a tenant may do is the deployment's
 * OUTBOUND_PORTAL_TRANSFORMATIONS: `edit` everything, `read` the saved code read-only with its test run
 * (the panel is left out when there is no code), `off` nothing (the panel is left out).
 */
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { api, ApiError, type Destination, type TransformationOutput, useDestinationsPath, usePortal } from "@/components/portal/api";
import { Badge } from "@/components/ui/Badge";
import { Button } from "@/components/ui/Button";
import { Card, CardHeader } from "@/components/ui/Card";
import { CodeEditor } from "@/components/ui/CodeEditor";
import { Field, Input } from "@/components/ui/Field";
import { Textarea } from "@/components/ui/Textarea";
import { TransformationResult } from "@/components/ui/TransformationResult";

const STARTER = `addHandler("transform", (request, context) => {
  // request: {headers, body, path, query}; context: {event, destination}
  request.headers["x-example"] = "1";
  return request;
});`;

const isHttp = (d: Destination) => d.type === "webhook" || d.type === "standard_webhook";

export function TransformationPanel({ d }: { d: Destination }) {
  const mode = usePortal().transformations ?? "read";
  const path = `${useDestinationsPath()}/${encodeURIComponent(d.id)}`;
  const client = useQueryClient();
  const editable = mode === "edit";
  const saved = d.transformation ?? null;
  const [code, setCode] = useState(saved ?? STARTER);
  const [eventId, setEventId] = useState("");
  const [sample, setSample] = useState('{\n  "id": "example"\n}');
  const [sampleError, setSampleError] = useState<string>();
  const [output, setOutput] = useState<TransformationOutput | null>(null);
  const test = useMutation({
    mutationFn: (body: unknown) => api<TransformationOutput>(`${path}/transformation/test`, { method: "POST", body }),
    onSuccess: setOutput,
  });
  const save = useMutation({
    mutationFn: (transformation: string | null) => api<Destination>(path, { method: "PATCH", body: { transformation } }),
    onSuccess: (updated) => {
      // Shown at once from the answer, not after a refetch.
      client.setQueryData(["portal", "destinations", d.id], updated);
      if (!updated.transformation) setCode(STARTER);
    },
  });
  if (mode === "off" || (!editable && !saved)) return null;

  function run() {
    setSampleError(undefined);
    let on: { event_id: string } | { sample: { data: unknown } };
    if (eventId.trim()) on = { event_id: eventId.trim() };
    else {
      try {
        on = { sample: { data: JSON.parse(sample) as unknown } };
      } catch {
        setSampleError("Sample data must be JSON.");
        return;
      }
    }
    test.mutate({ ...(editable ? { code } : {}), ...on });
  }

  const saveError = save.error instanceof ApiError ? (save.error.messages.length ? save.error.messages.join(" ") : save.error.message) : save.error?.message;
  const failed = output?.log_level === "fatal";
  return (
    <Card bodyClassName="p-0">
      <CardHeader
        title="Transformation"
        description={
          (isHttp(d)
            ? "JavaScript that changes each delivery's body, headers and path before it is sent and signed."
            : "JavaScript that changes each delivery's body and metadata before it is sent.") + (editable ? "" : " Read-only: ask us to change it.")
        }
        actions={
          <Badge tone={saved ? "success" : "neutral"} data-testid="transformation-state">
            {saved ? "Active" : "None"}
          </Badge>
        }
      />
      <div className="grid gap-4 p-4 sm:p-5 lg:grid-cols-2">
        <div className="grid min-w-0 content-start gap-3">
          <Field
            label="Code"
            hint={editable ? 'addHandler("transform", (request, context) => request). No network or timers; 1 s and 5 MiB per run.' : undefined}
          >
            {(p) => (
              <CodeEditor
                {...p}
                key={editable ? "edit" : saved}
                label="Transformation code"
                rows={12}
                readOnly={!editable}
                value={code}
                onChange={setCode}
                data-testid="transformation-code"
              />
            )}
          </Field>
          {editable && (
            <div className="flex flex-wrap justify-end gap-2">
              {saved && (
                <Button variant="dangerOutline" disabled={save.isPending} onClick={() => save.mutate(null)}>
                  Remove
                </Button>
              )}
              <Button variant="brand" disabled={save.isPending || code === saved} onClick={() => save.mutate(code)} data-testid="save-transformation">
                {save.isPending ? "Saving…" : "Save transformation"}
              </Button>
            </div>
          )}
          <div aria-live="polite">
            {save.isError && (
              <p role="alert" className="text-sm text-red-700 dark:text-red-400">
                Not saved: {saveError}
              </p>
            )}
            {save.isSuccess && !save.isPending && (
              <p role="status" className="text-sm font-medium text-emerald-800 dark:text-emerald-300">
                {save.data.transformation ? "Transformation saved: deliveries use it from now on." : "Transformation removed."}
              </p>
            )}
          </div>
        </div>
        <div className="grid min-w-0 content-start gap-3">
          <Field label="Event id" hint="Run on one of your events (evt_…), or leave empty to use the sample data.">
            {(p) => <Input {...p} value={eventId} onChange={(e) => setEventId(e.target.value)} placeholder="evt_…" data-testid="test-event-id" />}
          </Field>
          <Field label="Sample data (JSON)" error={sampleError}>
            {(p) => (
              <Textarea
                {...p}
                code
                rows={4}
                value={sample}
                disabled={Boolean(eventId.trim())}
                onChange={(e) => setSample(e.target.value)}
                data-testid="test-sample"
              />
            )}
          </Field>
          <div className="flex items-center justify-end gap-2">
            {output && (
              <Badge tone={failed ? "danger" : "success"} data-testid="run-level">
                {failed ? "Failed" : `OK · ${output.log_level}`}
              </Badge>
            )}
            <Button variant="secondary" disabled={test.isPending} onClick={run} data-testid="run-transformation">
              {test.isPending ? "Running…" : "Test run"}
            </Button>
          </div>
          <div aria-live="polite">
            {test.isError && (
              <p role="alert" className="text-sm text-red-700 dark:text-red-400">
                Could not run: {test.error.message}
              </p>
            )}
            {output ? (
              <TransformationResult output={output} />
            ) : (
              <p className="text-sm text-zinc-600 dark:text-zinc-400">Nothing is sent: the test run shows what your endpoint would receive (before signing).</p>
            )}
          </div>
        </div>
      </div>
    </Card>
  );
}
