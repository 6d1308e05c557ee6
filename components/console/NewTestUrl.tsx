"use client";

import { useRouter } from "next/navigation";
import { useEffect, useRef, useState } from "react";
import { createErrorOf, createTestUrl, type CreateError } from "@/components/console/api";
import { CreateErrorMessage } from "@/components/console/CreateTestUrl";
import { inspectPath } from "@/components/console/format";
import { Button, ButtonLink } from "@/components/ui/Button";
import { useCountdown } from "@/components/ui/hooks";
import { Spinner } from "@/components/ui/icons";

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
  const [retryAt, setRetryAt] = useState<number | null>(null);
  const retryIn = useCountdown(retryAt);

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
        const detail = createErrorOf(err);
        setError(detail);
        setRetryAt(detail.kind === "rate_limited" ? Date.now() + detail.retryAfter * 1000 : null);
      });
  }, [attempt, router, type]);

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
          <Button variant="primary" onClick={retry} disabled={retryIn > 0}>
            Try again
          </Button>
          <ButtonLink href="/" variant="ghost">
            Back to Hookyard
          </ButtonLink>
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
          This page needs JavaScript to create a test URL. You can also create one with <code className="font-mono">curl -X POST</code> on this site&apos;s
          address.
        </p>
      </noscript>
    </div>
  );
}
