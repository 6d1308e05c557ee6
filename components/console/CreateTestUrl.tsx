"use client";

import { useRouter } from "next/navigation";
import { useState } from "react";
import { createErrorOf, createTestUrl, type CreateError } from "@/components/console/api";
import { inspectPath } from "@/components/console/format";
import { Button } from "@/components/ui/Button";
import { Field, Input, Select } from "@/components/ui/Field";
import { useCountdown } from "@/components/ui/hooks";
import { ChevronDownIcon, PlusIcon, Spinner } from "@/components/ui/icons";
import { Notice } from "@/components/ui/Notice";

export type SourceTypeOption = { type: string; label: string };

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
      const detail = createErrorOf(err);
      setError(detail);
      setRetryAt(detail.kind === "rate_limited" ? Date.now() + detail.retryAfter * 1000 : null);
      setPending(false);
    }
  };
  return { create, pending, error, retryIn };
}

/** Why the last create failed: the rate limit with its countdown, the validation messages, or the error. */
export function CreateErrorMessage({ error, retryIn }: { error: CreateError; retryIn: number }) {
  return (
    <Notice tone="warning" data-testid="create-error">
      {error.kind === "rate_limited" ? (
        <>
          <p className="font-medium">{error.message}</p>
          <p className="mt-0.5 text-amber-800 dark:text-amber-200/80">{retryIn > 0 ? `You can try again in ${retryIn} s.` : "You can try again now."}</p>
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
    </Notice>
  );
}

/** The landing page's create form: optional name and type, and the primary "Create test URL" button. */
export function CreateTestUrlForm({ types }: { types: SourceTypeOption[] }) {
  const { create, pending, error, retryIn } = useCreate();
  const [name, setName] = useState("");
  const [type, setType] = useState("WEBHOOK");
  const [showOptions, setShowOptions] = useState(false);

  return (
    <form
      className="w-full"
      onSubmit={(e) => {
        e.preventDefault();
        void create({ name, type: type === "WEBHOOK" ? undefined : type });
      }}
    >
      <div className="flex flex-col items-stretch gap-3 sm:flex-row sm:items-center">
        <Button type="submit" variant="primary" size="lg" data-testid="create-test-url" disabled={pending || retryIn > 0}>
          {pending ? <Spinner className="size-5" /> : <PlusIcon className="size-5" />}
          {pending ? "Creating…" : "Create test URL"}
        </Button>
        <Button variant="ghost" onClick={() => setShowOptions((v) => !v)} aria-expanded={showOptions} aria-controls="create-options">
          Options
          <ChevronDownIcon className={`size-4 transition ${showOptions ? "rotate-180" : ""}`} />
        </Button>
      </div>

      {showOptions && (
        <div
          id="create-options"
          className="mt-4 grid gap-3 rounded-lg border border-zinc-200 bg-white/70 p-4 sm:grid-cols-2 dark:border-zinc-800 dark:bg-zinc-900/60"
        >
          <Field label="Name">
            {(p) => <Input {...p} name="name" value={name} maxLength={155} placeholder="Source" onChange={(e) => setName(e.target.value)} className="h-9" />}
          </Field>
          <Field label="Source type">
            {(p) => (
              <Select {...p} name="type" value={type} onChange={(e) => setType(e.target.value)} className="h-9">
                {types.map((t) => (
                  <option key={t.type} value={t.type}>
                    {t.label}
                  </option>
                ))}
              </Select>
            )}
          </Field>
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

/** A compact "New test URL" button for the inspect page header (a generic WEBHOOK source). */
export function NewTestUrlButton() {
  const { create, pending, error, retryIn } = useCreate();
  return (
    <div className="relative">
      <Button
        variant="primary"
        size="sm"
        data-testid="create-test-url"
        onClick={() => void create({})}
        disabled={pending || retryIn > 0}
        className="sm:h-9 sm:px-3.5 sm:text-sm"
      >
        {pending ? <Spinner className="size-4" /> : <PlusIcon className="size-4" />}
        <span className="hidden sm:inline">{pending ? "Creating…" : "New test URL"}</span>
        <span className="sm:hidden">New</span>
      </Button>
      {error && (
        <div className="absolute top-10 right-0 z-30 w-72">
          <CreateErrorMessage error={error} retryIn={retryIn} />
        </div>
      )}
    </div>
  );
}
