"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";
import { api, apiAll } from "@/components/dashboard/api";
import { fieldErrors, parseJsonField } from "@/components/dashboard/forms";
import { Badge } from "@/components/ui/Badge";
import { Button, ButtonLink } from "@/components/ui/Button";
import { Card } from "@/components/ui/Card";
import { ErrorMessage } from "@/components/ui/EmptyState";
import { Field, Input, Select } from "@/components/ui/Field";
import { PageHeader } from "@/components/ui/PageHeader";
import { CodeEditor } from "@/components/ui/CodeEditor";
import { Textarea } from "@/components/ui/Textarea";
import { TransformationResult } from "@/components/ui/TransformationResult";
import type { ZTransformationRunOutput } from "@/lib/gateway/transformations/routes";
import type { ZTransformation } from "@/lib/gateway/transformations/transformation-store";
import type { z } from "zod";

/* The API's models, from the server's schemas (type-only imports). */
type Transformation = z.infer<typeof ZTransformation>;
type RunOutput = z.infer<typeof ZTransformationRunOutput>;

const STARTER = `addHandler("transform", (request, context) => {
  request.headers["x-processed-by"] = "hookyard";
  console.log("path", request.path);
  return request;
});`;
const SAMPLE_BODY = `{\n  "id": "ord_1",\n  "type": "order.created"\n}`;
const SAMPLE_HEADERS = `{\n  "content-type": "application/json"\n}`;

/** `KEY=value` lines as an object; blank lines and `#` comments are skipped. */
function parseEnv(text: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of text.split("\n")) {
    const t = line.trim();
    if (!t || t.startsWith("#")) continue;
    const at = t.indexOf("=");
    if (at < 1) throw new Error(`Environment line “${t}” is not KEY=value`);
    env[t.slice(0, at).trim()] = t.slice(at + 1);
  }
  return env;
}

/**
 * The transformation editor: pick one of the team's transformations (or start a new one), edit its code
 * and environment, run it against a sample request (`PUT /transformations/run`) and see the output
 * request, the console lines and the error; save with `POST`/`PUT /transformations`.
 */
export function TransformationEditor() {
  const client = useQueryClient();
  const list = useQuery({ queryKey: ["transformations-all"], queryFn: () => apiAll<Transformation>("transformations?order_by=name&dir=asc") });
  const [selected, setSelected] = useState<string>("");
  const [name, setName] = useState("");
  const [code, setCode] = useState(STARTER);
  const [env, setEnv] = useState("");
  const [path, setPath] = useState("/orders");
  const [query, setQuery] = useState("");
  const [headers, setHeaders] = useState(SAMPLE_HEADERS);
  const [body, setBody] = useState(SAMPLE_BODY);
  const [output, setOutput] = useState<RunOutput | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState<"run" | "save" | null>(null);
  const [saved, setSaved] = useState<string | null>(null);

  useEffect(() => {
    const id = new URLSearchParams(window.location.search).get("id");
    // eslint-disable-next-line react-hooks/set-state-in-effect -- the query string is read once after hydration (the server render has none)
    if (id) setSelected(id);
  }, []);
  // The transformation whose code is in the editor: loading happens when the choice changes, not after a save.
  const loaded = useRef("");
  useEffect(() => {
    const t = list.data?.models.find((m) => m.id === selected);
    if (!t || loaded.current === t.id) return;
    loaded.current = t.id;
    setName(t.name);
    setCode(t.code);
    setEnv(
      Object.entries(t.env ?? {})
        .map(([k, v]) => `${k}=${v}`)
        .join("\n"),
    );
    setOutput(null);
  }, [selected, list.data]);

  function choose(id: string) {
    setSelected(id);
    setSaved(null);
    setError(null);
    setErrors({});
    if (!id) {
      loaded.current = "";
      setName("");
      setCode(STARTER);
      setEnv("");
      setOutput(null);
    }
  }

  async function run() {
    setBusy("run");
    setError(null);
    try {
      const request = {
        path: path || "/",
        query,
        headers: (parseJsonField(headers, "Headers") as Record<string, string>) ?? {},
        body: parseJsonField(body, "Body") ?? null,
      };
      setOutput(await api<RunOutput>("transformations/run", { method: "PUT", body: { code, env: parseEnv(env), request } }));
    } catch (err) {
      setError(err);
      setOutput(null);
    } finally {
      setBusy(null);
    }
  }

  async function save() {
    setBusy("save");
    setError(null);
    setErrors({});
    setSaved(null);
    try {
      const payload = { name: name.trim(), code, env: parseEnv(env) };
      const t = selected
        ? await api<Transformation>(`transformations/${selected}`, { method: "PUT", body: payload })
        : await api<Transformation>("transformations", { method: "POST", body: payload });
      await client.invalidateQueries({ queryKey: ["transformations-all"] });
      loaded.current = t.id;
      setSelected(t.id);
      setSaved(`Saved ${t.name}.`);
    } catch (err) {
      setError(err);
      setErrors(fieldErrors(err));
    } finally {
      setBusy(null);
    }
  }

  const failed = output?.log_level === "fatal";
  return (
    <>
      <PageHeader
        title="Transformations"
        description="JavaScript that changes a request before delivery. Test it here against a sample request, then use it in a connection's transform rule."
        actions={
          <ButtonLink href="/dashboard/connections" variant="ghost">
            Back to connections
          </ButtonLink>
        }
      />
      {error != null && (
        <div className="mb-4">
          <ErrorMessage title={busy === "save" ? "Could not save" : "Something went wrong"} error={error} />
        </div>
      )}
      {saved && (
        <p
          role="status"
          className="mb-4 rounded-lg border border-emerald-300 bg-emerald-50 px-4 py-3 text-sm text-emerald-900 dark:border-emerald-500/40 dark:bg-emerald-500/10 dark:text-emerald-200"
        >
          {saved}
        </p>
      )}
      <div className="grid grid-cols-1 gap-4 lg:grid-cols-2">
        <Card title="Code" className="min-w-0">
          <div className="grid gap-3">
            <div className="grid gap-3 sm:grid-cols-2">
              <Field label="Transformation">
                {(p) => (
                  <Select {...p} value={selected} onChange={(e) => choose(e.target.value)} data-testid="transformation-select">
                    <option value="">New transformation</option>
                    {list.data?.models.map((t) => (
                      <option key={t.id} value={t.id}>
                        {t.name}
                      </option>
                    ))}
                  </Select>
                )}
              </Field>
              <Field label="Name" error={errors.name}>
                {(p) => <Input {...p} value={name} onChange={(e) => setName(e.target.value)} placeholder="add-header" data-testid="transformation-name" />}
              </Field>
            </div>
            <Field label="Code" error={errors.code} hint='addHandler("transform", (request, context) => request). No network or timers; 1 s and 5 MiB per run.'>
              {(p) => <CodeEditor {...p} label="Code" rows={14} value={code} onChange={setCode} data-testid="transformation-code" />}
            </Field>
            <Field label="Environment (process.env)" error={errors.env} hint="One KEY=value per line; stored encrypted.">
              {(p) => <Textarea {...p} code rows={3} value={env} onChange={(e) => setEnv(e.target.value)} placeholder="STAGE=prod" />}
            </Field>
            <div className="flex justify-end">
              <Button variant="secondary" onClick={() => void save()} disabled={busy !== null} data-testid="save-transformation">
                {busy === "save" ? "Saving…" : selected ? "Save changes" : "Save transformation"}
              </Button>
            </div>
          </div>
        </Card>
        <div className="grid min-w-0 grid-cols-1 content-start gap-4">
          <Card title="Sample request">
            <div className="grid gap-3">
              <div className="grid gap-3 sm:grid-cols-2">
                <Field label="Path">{(p) => <Input {...p} value={path} onChange={(e) => setPath(e.target.value)} />}</Field>
                <Field label="Query string">{(p) => <Input {...p} value={query} onChange={(e) => setQuery(e.target.value)} placeholder="x=1&y=2" />}</Field>
              </div>
              <Field label="Headers (JSON)">{(p) => <Textarea {...p} code rows={3} value={headers} onChange={(e) => setHeaders(e.target.value)} />}</Field>
              <Field label="Body (JSON)">
                {(p) => <Textarea {...p} code rows={5} value={body} onChange={(e) => setBody(e.target.value)} data-testid="sample-body" />}
              </Field>
              <div className="flex justify-end">
                <Button variant="primary" onClick={() => void run()} disabled={busy !== null} data-testid="run-transformation">
                  {busy === "run" ? "Running…" : "Run test"}
                </Button>
              </div>
            </div>
          </Card>
          <Card
            title="Result"
            actions={
              output && (
                <Badge tone={failed ? "danger" : "success"} data-testid="run-level">
                  {failed ? "Failed" : `OK · ${output.log_level}`}
                </Badge>
              )
            }
            aria-live="polite"
          >
            {!output ? (
              <p className="text-sm text-zinc-600 dark:text-zinc-400">Run the test to see the request your destination would get, and what the code logged.</p>
            ) : (
              <TransformationResult output={output} />
            )}
          </Card>
        </div>
      </div>
    </>
  );
}
