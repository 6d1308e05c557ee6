"use client";
/**
 * A form generated from field schemas (the outbound `/destination-types` `config_fields` and
 * `credential_fields`, docs/outbound.md#destinations-and-their-types; reused by the dashboard): each field's `type`
 * (text, checkbox, select, key_value_map), `label`, `description`, `required`, `pattern`, `default`,
 * `sensitive` and `options`. Fields are grouped in sections (`config`, `credentials`); values come back
 * per section: text and select as strings, checkboxes as "true"/"false", key-value maps as objects.
 * Empty values are omitted, or sent as null with `emptyAs="null"` (merge-patch clears them). Validates
 * required and pattern in the browser, and shows the server's validation messages (`config.url is
 * required`) next to the field they name, the rest above the form. Keyboard: plain inputs and buttons;
 * the first invalid field is focused on submit.
 */
import { useId, useMemo, useRef, useState } from "react";
import { displayText } from "@/components/ui/text";

type SchemaField = {
  key: string;
  type: "text" | "checkbox" | "key_value_map" | "select";
  label: string;
  description?: string;
  required?: boolean;
  default?: string;
  sensitive?: boolean;
  pattern?: string;
  options?: { label: string; value: string }[];
};
export type SchemaSection = { name: string; title?: string; fields: SchemaField[] };
type SchemaValues = Record<string, Record<string, unknown>>;

type Raw = Record<string, Record<string, string | boolean | [string, string][]>>;

type SchemaFormProps = {
  sections: SchemaSection[];
  /** Initial values per section (strings; key-value maps as an object or its JSON text). */
  initial?: Record<string, Record<string, unknown>>;
  /** Messages from the server (422 `data`), shown by the field they name (`section.key …`) or above the form. */
  serverErrors?: string[];
  /** A message about the whole submission (e.g. "Not saved: …"). */
  formError?: string | null;
  onSubmit: (values: SchemaValues) => void;
  submitLabel: string;
  pending?: boolean;
  /** Empty fields: left out (create) or sent as null (a merge-patch update clears them). */
  emptyAs?: "omit" | "null";
  /** Sensitive fields whose stored value is not shown (edit): left empty means unchanged. */
  keepSensitive?: boolean;
  /** Extra fields rendered first, inside the form (their values are the caller's). */
  children?: React.ReactNode;
  /** Extra client-side check run on submit; returns messages for the form summary. */
  validateExtra?: () => string[];
  /** Buttons next to submit. */
  actions?: React.ReactNode;
};

const inputClass =
  "block w-full rounded-md border border-zinc-300 bg-white px-3 py-2 text-sm text-zinc-900 shadow-xs placeholder:text-zinc-500 focus:border-[var(--brand,#4f46e5)] focus:outline-2 focus:outline-offset-0 focus:outline-[var(--brand,#4f46e5)] aria-[invalid=true]:border-red-600 dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-100 dark:placeholder:text-zinc-400 dark:aria-[invalid=true]:border-red-400";

/** Text with `code` spans (the schemas' descriptions use backticks), rendered as text only. */
export function InlineCode({ text }: { text: string }) {
  return (
    <>
      {text.split("`").map((part, i) =>
        i % 2 ? (
          <code key={i} className="rounded bg-zinc-100 px-1 font-mono text-[0.85em] dark:bg-zinc-800">
            {part}
          </code>
        ) : (
          part
        ),
      )}
    </>
  );
}

function toPairs(v: unknown): [string, string][] {
  let obj = v;
  if (typeof v === "string" && v.trim()) {
    try {
      obj = JSON.parse(v);
    } catch {
      return [];
    }
  }
  return obj && typeof obj === "object" && !Array.isArray(obj) ? Object.entries(obj as Record<string, unknown>).map(([k, x]) => [k, String(x)]) : [];
}

function initialRaw(sections: SchemaSection[], initial: SchemaFormProps["initial"], keepSensitive: boolean): Raw {
  const raw: Raw = {};
  for (const s of sections) {
    raw[s.name] = {};
    for (const f of s.fields) {
      const given = initial?.[s.name]?.[f.key];
      if (f.type === "key_value_map") raw[s.name][f.key] = toPairs(given);
      else if (f.type === "checkbox") raw[s.name][f.key] = displayText(given ?? f.default ?? "false") === "true";
      else if (f.sensitive && keepSensitive) raw[s.name][f.key] = "";
      else
        raw[s.name][f.key] =
          given === undefined || given === null ? (f.default ?? (f.type === "select" ? (f.options?.[0]?.value ?? "") : "")) : displayText(given);
    }
  }
  return raw;
}

/** Which field a server message names: `config.url is required` → `config.url`. */
function fieldOfMessage(message: string, sections: SchemaSection[]): string | null {
  for (const s of sections)
    for (const f of s.fields) {
      const id = `${s.name}.${f.key}`;
      if (message === id || message.startsWith(`${id} `) || message.startsWith(`${id}:`) || message.startsWith(`${id}.`)) return id;
    }
  return null;
}

export function SchemaForm(props: SchemaFormProps) {
  const { sections, serverErrors = [], emptyAs = "omit", keepSensitive = false } = props;
  const uid = useId();
  const formRef = useRef<HTMLFormElement>(null);
  const [raw, setRaw] = useState<Raw>(() => initialRaw(sections, props.initial, keepSensitive));
  const [clientErrors, setClientErrors] = useState<Record<string, string>>({});
  const [extraErrors, setExtraErrors] = useState<string[]>([]);

  const serverByField = useMemo(() => {
    const by: Record<string, string[]> = {};
    const rest: string[] = [];
    for (const m of serverErrors) {
      const id = fieldOfMessage(m, sections);
      if (id) (by[id] ??= []).push(m);
      else rest.push(m);
    }
    return { by, rest };
  }, [serverErrors, sections]);

  const set = (section: string, key: string, value: string | boolean | [string, string][]) => {
    setRaw((r) => ({ ...r, [section]: { ...r[section], [key]: value } }));
    setClientErrors((e) => {
      if (!e[`${section}.${key}`]) return e;
      const { [`${section}.${key}`]: _gone, ...rest } = e;
      return rest;
    });
  };

  function validate(): Record<string, string> {
    const errors: Record<string, string> = {};
    for (const s of sections)
      for (const f of s.fields) {
        const v = raw[s.name][f.key];
        const id = `${s.name}.${f.key}`;
        if (f.type === "key_value_map") {
          const pairs = v as [string, string][];
          if (pairs.some(([k, x]) => !k.trim() || !x.trim())) errors[id] = `${f.label}: every entry needs a name and a value.`;
          continue;
        }
        if (typeof v !== "string") continue;
        if (!v.trim()) {
          if (f.required && !(f.sensitive && keepSensitive)) errors[id] = `${f.label} is required.`;
          continue;
        }
        if (f.pattern) {
          let ok = true;
          try {
            ok = new RegExp(f.pattern).test(v.trim());
          } catch {
            ok = true;
          }
          if (!ok) errors[id] = `${f.label} does not have the expected format.`;
        }
      }
    return errors;
  }

  function collect(): SchemaValues {
    const out: SchemaValues = {};
    for (const s of sections) {
      out[s.name] = {};
      for (const f of s.fields) {
        const v = raw[s.name][f.key];
        let value: unknown;
        if (f.type === "checkbox") value = v ? "true" : "false";
        else if (f.type === "key_value_map") {
          const pairs = (v as [string, string][]).filter(([k]) => k.trim());
          value = pairs.length ? Object.fromEntries(pairs.map(([k, x]) => [k.trim(), x])) : undefined;
        } else value = (v as string).trim() || undefined;
        if (value === undefined) {
          if (f.sensitive && keepSensitive) continue;
          if (emptyAs === "null") out[s.name][f.key] = null;
          continue;
        }
        out[s.name][f.key] = value;
      }
    }
    return out;
  }

  function submit(e: React.FormEvent) {
    e.preventDefault();
    const errors = validate();
    const extra = props.validateExtra?.() ?? [];
    setClientErrors(errors);
    setExtraErrors(extra);
    if (Object.keys(errors).length || extra.length) {
      const first = Object.keys(errors)[0];
      const el = first ? formRef.current?.querySelector<HTMLElement>(`[data-field="${CSS.escape(first)}"]`) : null;
      (el ?? formRef.current?.querySelector<HTMLElement>("[data-form-summary]"))?.focus();
      return;
    }
    props.onSubmit(collect());
  }

  const summary = [...(props.formError ? [props.formError] : []), ...extraErrors, ...serverByField.rest];

  return (
    <form ref={formRef} onSubmit={submit} noValidate className="space-y-6">
      {summary.length > 0 && (
        <div
          data-form-summary
          tabIndex={-1}
          role="alert"
          className="rounded-md border border-red-300 bg-red-50 p-3 text-sm text-red-800 dark:border-red-900 dark:bg-red-950/60 dark:text-red-200"
        >
          <ul className="list-inside list-disc space-y-1">
            {summary.map((m, i) => (
              <li key={i}>{m}</li>
            ))}
          </ul>
        </div>
      )}
      {props.children}
      {sections.map((s) =>
        s.fields.length === 0 ? null : (
          <fieldset key={s.name} className="space-y-4">
            {s.title && <legend className="mb-2 text-sm font-semibold text-zinc-900 dark:text-zinc-100">{s.title}</legend>}
            {s.fields.map((f) => {
              const id = `${s.name}.${f.key}`;
              const domId = `${uid}-${s.name}-${f.key}`;
              const messages = [...(clientErrors[id] ? [clientErrors[id]] : []), ...(serverByField.by[id] ?? [])];
              const describedBy = [f.description ? `${domId}-desc` : "", messages.length ? `${domId}-err` : ""].filter(Boolean).join(" ") || undefined;
              const invalid = messages.length > 0;
              const value = raw[s.name][f.key];
              return (
                <div key={f.key} className="space-y-1.5">
                  {f.type === "checkbox" ? (
                    <label htmlFor={domId} className="flex items-center gap-2 text-sm font-medium text-zinc-800 dark:text-zinc-200">
                      <input
                        id={domId}
                        data-field={id}
                        type="checkbox"
                        checked={value as boolean}
                        onChange={(e) => set(s.name, f.key, e.target.checked)}
                        aria-describedby={describedBy}
                        className="size-4 rounded border-zinc-400 accent-[var(--brand,#4f46e5)]"
                      />
                      {f.label}
                    </label>
                  ) : (
                    <label htmlFor={domId} className="block text-sm font-medium text-zinc-800 dark:text-zinc-200">
                      {f.label}
                      {f.required && !(f.sensitive && keepSensitive) ? (
                        <span className="text-red-700 dark:text-red-400" aria-hidden>
                          {" "}
                          *
                        </span>
                      ) : (
                        <span className="font-normal text-zinc-600 dark:text-zinc-400"> (optional)</span>
                      )}
                    </label>
                  )}
                  {f.type === "text" && (
                    <input
                      id={domId}
                      data-field={id}
                      type={f.sensitive ? "password" : "text"}
                      autoComplete={f.sensitive ? "new-password" : "off"}
                      spellCheck={false}
                      value={value as string}
                      placeholder={f.sensitive && keepSensitive ? "Unchanged" : undefined}
                      onChange={(e) => set(s.name, f.key, e.target.value)}
                      aria-invalid={invalid}
                      aria-required={f.required && !(f.sensitive && keepSensitive)}
                      aria-describedby={describedBy}
                      className={inputClass}
                    />
                  )}
                  {f.type === "select" && (
                    <select
                      id={domId}
                      data-field={id}
                      value={value as string}
                      onChange={(e) => set(s.name, f.key, e.target.value)}
                      aria-invalid={invalid}
                      aria-describedby={describedBy}
                      className={inputClass}
                    >
                      {(f.options ?? []).map((o) => (
                        <option key={o.value} value={o.value}>
                          {o.label}
                        </option>
                      ))}
                    </select>
                  )}
                  {f.type === "key_value_map" && (
                    <KeyValueEditor
                      id={domId}
                      field={id}
                      label={f.label}
                      pairs={value as [string, string][]}
                      onChange={(p) => set(s.name, f.key, p)}
                      describedBy={describedBy}
                      invalid={invalid}
                    />
                  )}
                  {f.description && (
                    <p id={`${domId}-desc`} className="text-xs text-zinc-600 dark:text-zinc-400">
                      <InlineCode text={f.description} />
                    </p>
                  )}
                  {messages.length > 0 && (
                    <p id={`${domId}-err`} className="text-xs font-medium text-red-700 dark:text-red-400">
                      {messages.join(" ")}
                    </p>
                  )}
                </div>
              );
            })}
          </fieldset>
        ),
      )}
      <div className="flex flex-wrap items-center gap-3 pt-2">
        <button
          type="submit"
          disabled={props.pending}
          className="inline-flex items-center justify-center rounded-md bg-[var(--brand,#4f46e5)] px-4 py-2 text-sm font-semibold text-[var(--brand-fg,#fff)] shadow-sm hover:opacity-90 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-[var(--hy-focus)] disabled:opacity-60"
        >
          {props.pending ? "Saving…" : props.submitLabel}
        </button>
        {props.actions}
      </div>
    </form>
  );
}

function KeyValueEditor(p: {
  id: string;
  field: string;
  label: string;
  pairs: [string, string][];
  onChange: (pairs: [string, string][]) => void;
  describedBy?: string;
  invalid: boolean;
}) {
  const update = (i: number, at: 0 | 1, v: string) => p.onChange(p.pairs.map((pair, j) => (j === i ? (at === 0 ? [v, pair[1]] : [pair[0], v]) : pair)));
  return (
    <div id={p.id} data-field={p.field} tabIndex={-1} role="group" aria-label={p.label} aria-describedby={p.describedBy} className="space-y-2">
      {p.pairs.map(([k, v], i) => (
        <div key={i} className="flex flex-wrap gap-2 sm:flex-nowrap">
          <input
            aria-label={`${p.label}: name ${i + 1}`}
            aria-invalid={p.invalid && !k.trim()}
            value={k}
            onChange={(e) => update(i, 0, e.target.value)}
            placeholder="Name"
            spellCheck={false}
            className={`${inputClass} sm:w-2/5`}
          />
          <input
            aria-label={`${p.label}: value ${i + 1}`}
            aria-invalid={p.invalid && !v.trim()}
            value={v}
            onChange={(e) => update(i, 1, e.target.value)}
            placeholder="Value"
            spellCheck={false}
            className={`${inputClass} min-w-0 flex-1`}
          />
          <button
            type="button"
            onClick={() => p.onChange(p.pairs.filter((_, j) => j !== i))}
            className="rounded-md border border-zinc-300 px-3 py-2 text-sm text-zinc-700 hover:bg-zinc-100 focus-visible:outline-2 focus-visible:outline-[var(--hy-focus)] dark:border-zinc-700 dark:text-zinc-300 dark:hover:bg-zinc-800"
          >
            Remove<span className="sr-only"> entry {i + 1}</span>
          </button>
        </div>
      ))}
      <button
        type="button"
        onClick={() => p.onChange([...p.pairs, ["", ""]])}
        className="rounded-md border border-dashed border-zinc-400 px-3 py-1.5 text-sm text-zinc-700 hover:bg-zinc-100 focus-visible:outline-2 focus-visible:outline-[var(--hy-focus)] dark:border-zinc-600 dark:text-zinc-300 dark:hover:bg-zinc-800"
      >
        Add entry
      </button>
    </div>
  );
}
