"use client";

import { useRouter } from "next/navigation";
import { useEffect, useId, useState } from "react";
import { createTestUrl, CreateTestUrlError, type CreateError } from "@/components/api";
import { inspectPath } from "@/components/format";
import { ChevronDownIcon, PlusIcon, Spinner } from "@/components/icons";

export type SourceTypeOption = { type: string; label: string };

/** Seconds left until `until` (ms), ticking; 0 when passed. */
function useCountdown(until: number | null): number {
  // The seconds left, with the `until` they count down to: 0 until the first tick of a new `until`.
  const [count, setCount] = useState<{ until: number | null; left: number }>({ until: null, left: 0 });
  useEffect(() => {
    if (until == null) return;
    const tick = () => setCount({ until, left: Math.max(0, Math.ceil((until - Date.now()) / 1000)) });
    tick();
    const t = setInterval(tick, 250);
    return () => clearInterval(t);
  }, [until]);
  return until != null && count.until === until ? count.left : 0;
}

function useCreate() {
  const router = useRouter();
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<CreateError | null>(null);
  const [retryAt, setRetryAt] = useState<number | null>(null);
  const retryIn = useCountdown(retryAt);

  const create = async (input: { type?: string; name?: string }) => {
    if (pending || retryIn > 0) return;
    setPending(true);
    setError(null);
    try {
      const { id } = await createTestUrl(input);
      router.push(inspectPath(id));
      // Keep the busy state until the navigation replaces this page.
    } catch (err) {
      const detail: CreateError =
        err instanceof CreateTestUrlError ? err.detail : { kind: "other", message: "Something went wrong. Please try again." };
      setError(detail);
      setRetryAt(detail.kind === "rate_limited" ? Date.now() + detail.retryAfter * 1000 : null);
      setPending(false);
    }
  };
  return { create, pending, error, retryIn };
}

export function CreateErrorMessage({ error, retryIn }: { error: CreateError; retryIn: number }) {
  return (
    <div
      role="alert"
      data-testid="create-error"
      className="rounded-lg border border-amber-300/70 bg-amber-50 px-3 py-2 text-sm text-amber-900 dark:border-amber-500/30 dark:bg-amber-500/10 dark:text-amber-200"
    >
      {error.kind === "rate_limited" ? (
        <>
          <p className="font-medium">{error.message}</p>
          <p className="mt-0.5 text-amber-800/80 dark:text-amber-200/80">
            {retryIn > 0 ? `You can try again in ${retryIn} s.` : "You can try again now."}
          </p>
        </>
      ) : error.kind === "invalid" ? (
        <ul className="list-inside list-disc space-y-0.5">
          {error.messages.map((m, i) => (
            <li key={i}>{m}</li>
          ))}
        </ul>
      ) : (
        <p>{error.message}</p>
      )}
    </div>
  );
}

/** The landing page's create form: optional name and type, and the primary "Create test URL" button. */
export function CreateTestUrlForm({ types }: { types: SourceTypeOption[] }) {
  const { create, pending, error, retryIn } = useCreate();
  const [name, setName] = useState("");
  const [type, setType] = useState("WEBHOOK");
  const [showOptions, setShowOptions] = useState(false);
  const nameId = useId();
  const typeId = useId();

  return (
    <form
      className="w-full"
      onSubmit={(e) => {
        e.preventDefault();
        void create({ name, type: type === "WEBHOOK" ? undefined : type });
      }}
    >
      <div className="flex flex-col items-stretch gap-3 sm:flex-row sm:items-center">
        <button
          type="submit"
          data-testid="create-test-url"
          disabled={pending || retryIn > 0}
          className="inline-flex h-12 items-center justify-center gap-2 rounded-xl bg-indigo-600 px-6 text-base font-semibold text-white shadow-lg shadow-indigo-600/20 transition hover:bg-indigo-500 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-500 active:scale-[0.98] disabled:cursor-not-allowed disabled:opacity-60 dark:shadow-indigo-900/40"
        >
          {pending ? <Spinner className="size-5" /> : <PlusIcon className="size-5" />}
          {pending ? "Creating…" : "Create test URL"}
        </button>
        <button
          type="button"
          onClick={() => setShowOptions((v) => !v)}
          aria-expanded={showOptions}
          className="inline-flex h-10 items-center justify-center gap-1 rounded-lg px-3 text-sm font-medium text-zinc-600 transition hover:bg-zinc-100 hover:text-zinc-900 dark:text-zinc-400 dark:hover:bg-zinc-800 dark:hover:text-zinc-100"
        >
          Options
          <ChevronDownIcon className={`size-4 transition ${showOptions ? "rotate-180" : ""}`} />
        </button>
      </div>

      {showOptions && (
        <div className="mt-4 grid gap-3 rounded-xl border border-zinc-200 bg-white/70 p-4 sm:grid-cols-2 dark:border-zinc-800 dark:bg-zinc-900/60">
          <label htmlFor={nameId} className="grid gap-1.5 text-sm">
            <span className="font-medium text-zinc-700 dark:text-zinc-300">Name</span>
            <input
              id={nameId}
              name="name"
              value={name}
              maxLength={155}
              placeholder="Source"
              onChange={(e) => setName(e.target.value)}
              className="h-10 rounded-lg border border-zinc-300 bg-white px-3 text-zinc-900 shadow-xs outline-none placeholder:text-zinc-400 focus:border-indigo-500 focus:ring-2 focus:ring-indigo-500/30 dark:border-zinc-700 dark:bg-zinc-950 dark:text-zinc-100"
            />
          </label>
          <label htmlFor={typeId} className="grid gap-1.5 text-sm">
            <span className="font-medium text-zinc-700 dark:text-zinc-300">Source type</span>
            <select
              id={typeId}
              name="type"
              value={type}
              onChange={(e) => setType(e.target.value)}
              className="h-10 rounded-lg border border-zinc-300 bg-white px-3 text-zinc-900 shadow-xs outline-none focus:border-indigo-500 focus:ring-2 focus:ring-indigo-500/30 dark:border-zinc-700 dark:bg-zinc-950 dark:text-zinc-100"
            >
              {types.map((t) => (
                <option key={t.type} value={t.type}>
                  {t.label}
                </option>
              ))}
            </select>
          </label>
        </div>
      )}

      {error && (
        <div className="mt-4">
          <CreateErrorMessage error={error} retryIn={retryIn} />
        </div>
      )}
    </form>
  );
}

/** A compact "New URL" button for the inspect page header (a generic WEBHOOK source). */
export function NewTestUrlButton() {
  const { create, pending, error, retryIn } = useCreate();
  return (
    <div className="relative">
      <button
        type="button"
        data-testid="create-test-url"
        onClick={() => void create({})}
        disabled={pending || retryIn > 0}
        className="inline-flex h-8 items-center gap-1.5 rounded-lg bg-indigo-600 px-3 text-sm font-medium text-white shadow-sm transition hover:bg-indigo-500 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-500 disabled:cursor-not-allowed disabled:opacity-60"
      >
        {pending ? <Spinner className="size-4" /> : <PlusIcon className="size-4" />}
        <span className="hidden sm:inline">{pending ? "Creating…" : "New test URL"}</span>
        <span className="sm:hidden">New</span>
      </button>
      {error && (
        <div className="absolute right-0 top-10 z-30 w-72">
          <CreateErrorMessage error={error} retryIn={retryIn} />
        </div>
      )}
    </div>
  );
}
