"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { useEffect, useRef, useState } from "react";
import { createTestUrl, CreateTestUrlError, type CreateError } from "@/components/api";
import { CreateErrorMessage } from "@/components/CreateTestUrl";
import { inspectPath } from "@/components/format";
import { Spinner } from "@/components/icons";

/**
 * `GET /new`: creates a test URL once the page runs in a browser (so clients without scripts create
 * nothing), then replaces the history entry with the new source's inspect page.
 */
export function NewTestUrl({ type }: { type?: string }) {
  const router = useRouter();
  const started = useRef(false);
  const mounted = useRef(false);
  const [error, setError] = useState<CreateError | null>(null);
  const [attempt, setAttempt] = useState(0);
  const [retryIn, setRetryIn] = useState(0);

  useEffect(() => {
    mounted.current = true;
    return () => {
      mounted.current = false;
    };
  }, []);

  useEffect(() => {
    // One create per attempt, also under React's development double-invoked effects.
    if (started.current) return;
    started.current = true;
    createTestUrl(type ? { type } : {})
      .then(({ id }) => {
        if (mounted.current) router.replace(inspectPath(id));
      })
      .catch((err: unknown) => {
        if (!mounted.current) return;
        const detail: CreateError =
          err instanceof CreateTestUrlError ? err.detail : { kind: "other", message: "Something went wrong. Please try again." };
        setError(detail);
        setRetryIn(detail.kind === "rate_limited" ? detail.retryAfter : 0);
      });
  }, [attempt, router, type]);

  useEffect(() => {
    if (retryIn <= 0) return;
    const t = setTimeout(() => setRetryIn((s) => s - 1), 1000);
    return () => clearTimeout(t);
  }, [retryIn]);

  const retry = () => {
    started.current = false;
    setError(null);
    setAttempt((a) => a + 1);
  };

  if (error) {
    return (
      <div className="w-full max-w-md space-y-4 text-center" data-testid="new-error">
        <h1 className="text-xl font-semibold text-zinc-900 dark:text-zinc-50">Could not create your test URL</h1>
        <div className="text-left">
          <CreateErrorMessage error={error} retryIn={retryIn} />
        </div>
        <div className="flex items-center justify-center gap-3">
          <button
            type="button"
            onClick={retry}
            disabled={retryIn > 0}
            className="inline-flex h-10 items-center rounded-lg bg-indigo-600 px-4 text-sm font-semibold text-white transition hover:bg-indigo-500 disabled:cursor-not-allowed disabled:opacity-60"
          >
            Try again
          </button>
          <Link href="/" className="inline-flex h-10 items-center rounded-lg px-4 text-sm font-medium text-zinc-700 hover:bg-zinc-100 dark:text-zinc-300 dark:hover:bg-zinc-800">
            Back to Hookyard
          </Link>
        </div>
      </div>
    );
  }

  return (
    <div className="flex flex-col items-center gap-4 text-center" role="status" aria-live="polite" data-testid="new-pending">
      <Spinner className="size-8 text-indigo-600 dark:text-indigo-400" />
      <p className="text-lg font-medium text-zinc-900 dark:text-zinc-50">Creating your test URL…</p>
      <noscript>
        <p className="max-w-sm text-sm text-zinc-600 dark:text-zinc-400">
          This page needs JavaScript to create a test URL. You can also create one with{" "}
          <code className="font-mono">curl -X POST</code> on this site&apos;s address.
        </p>
      </noscript>
    </div>
  );
}
