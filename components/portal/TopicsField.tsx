"use client";
/** The topics a destination subscribes to: all (`*`), or a choice among the deployment's topics (free text when it configures none). */
import { useId } from "react";
import { useTopics } from "@/components/portal/api";

export type TopicsValue = { all: boolean; picked: string[]; text: string };
export const topicsValueOf = (topics: string[] | undefined): TopicsValue =>
  !topics || topics.includes("*") ? { all: true, picked: [], text: "" } : { all: false, picked: topics, text: topics.join(", ") };

/** The API's `topics` of a value, or a message saying what is missing. */
export function topicsOf(v: TopicsValue, available: string[]): { topics: "*" | string[] } | { error: string } {
  if (v.all) return { topics: "*" };
  const list = available.length
    ? v.picked
    : v.text
        .split(",")
        .map((t) => t.trim())
        .filter(Boolean);
  return list.length ? { topics: list } : { error: "Choose at least one topic, or receive all topics." };
}

export function TopicsField({ value, onChange, error }: { value: TopicsValue; onChange: (v: TopicsValue) => void; error?: string }) {
  const id = useId();
  const topics = useTopics();
  const available = topics.data ?? [];
  return (
    <fieldset className="space-y-2" aria-describedby={error ? `${id}-err` : undefined}>
      <legend className="mb-1 text-sm font-semibold text-zinc-900 dark:text-zinc-100">Topics</legend>
      <label className="flex items-center gap-2 text-sm text-zinc-800 dark:text-zinc-200">
        <input type="checkbox" className="size-4 accent-[var(--brand)]" checked={value.all} onChange={(e) => onChange({ ...value, all: e.target.checked })} />
        Receive all topics
      </label>
      {!value.all &&
        (available.length ? (
          <div className="grid gap-2 pl-1 sm:grid-cols-2">
            {available.map((t) => (
              <label key={t} className="flex items-center gap-2 font-mono text-sm text-zinc-800 dark:text-zinc-200">
                <input
                  type="checkbox"
                  className="size-4 accent-[var(--brand)]"
                  checked={value.picked.includes(t)}
                  onChange={(e) => onChange({ ...value, picked: e.target.checked ? [...value.picked, t] : value.picked.filter((x) => x !== t) })}
                />
                {t}
              </label>
            ))}
          </div>
        ) : (
          <div className="space-y-1">
            <label htmlFor={`${id}-text`} className="block text-sm font-medium text-zinc-800 dark:text-zinc-200">
              Topic names
            </label>
            <input
              id={`${id}-text`}
              value={value.text}
              onChange={(e) => onChange({ ...value, text: e.target.value })}
              placeholder="order.created, order.paid"
              spellCheck={false}
              aria-describedby={`${id}-hint`}
              className="block w-full rounded-md border border-zinc-300 bg-white px-3 py-2 text-sm shadow-xs placeholder:text-zinc-500 focus:outline-2 focus:outline-[var(--brand)] dark:border-zinc-700 dark:bg-zinc-900 dark:placeholder:text-zinc-400"
            />
            <p id={`${id}-hint`} className="text-xs text-zinc-600 dark:text-zinc-400">
              Separate topics with commas.
            </p>
          </div>
        ))}
      {error && (
        <p id={`${id}-err`} className="text-xs font-medium text-red-700 dark:text-red-400">
          {error}
        </p>
      )}
    </fieldset>
  );
}
