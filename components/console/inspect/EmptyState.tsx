"use client";

import { useState } from "react";
import { Button } from "@/components/ui/Button";
import { CopyButton } from "@/components/ui/CopyButton";
import { InboxIcon, SendIcon, Spinner } from "@/components/ui/icons";

function sameOrigin(url: string): boolean {
  try {
    return new URL(url, window.location.href).origin === window.location.origin;
  } catch {
    return false;
  }
}

/** Shown until the first request arrives: how to send one (a curl command, or a button sending one from here). */
export function EmptyState({ ingestUrl }: { ingestUrl: string }) {
  const curl = `curl -X POST ${ingestUrl} -H 'content-type: application/json' -d '{"hello":"world"}'`;
  const [sending, setSending] = useState(false);
  const [sendError, setSendError] = useState<string | null>(null);

  const sendTest = async () => {
    setSending(true);
    setSendError(null);
    try {
      if (!sameOrigin(ingestUrl)) throw new Error("cross-origin");
      // No cookies: whatever reaches the ingest URL is readable by anyone holding the id.
      await fetch(ingestUrl, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ hello: "world", sent_from: "hookyard console" }),
        credentials: "omit",
        cache: "no-store",
        referrerPolicy: "no-referrer",
      });
    } catch {
      setSendError("Could not send from the browser. Use the curl command above.");
    } finally {
      setSending(false);
    }
  };

  return (
    <div data-testid="empty-state" className="mx-auto flex w-full max-w-2xl flex-col items-center px-4 py-12 text-center sm:py-20">
      <div className="relative mb-6">
        <span className="absolute inset-0 animate-ping rounded-2xl bg-indigo-400/20 [animation-duration:2.5s]" aria-hidden />
        <span className="relative flex size-14 items-center justify-center rounded-2xl bg-indigo-50 text-indigo-600 ring-1 ring-indigo-600/10 dark:bg-indigo-500/10 dark:text-indigo-300 dark:ring-indigo-400/20">
          <InboxIcon className="size-7" />
        </span>
      </div>
      <h2 className="text-lg font-semibold text-zinc-900 dark:text-zinc-50">Waiting for the first request…</h2>
      <p className="mt-2 max-w-md text-sm text-zinc-600 dark:text-zinc-400">
        Point a webhook at your ingest URL, or send one yourself. Requests of any method show up here instantly.
      </p>
      <div className="mt-6 w-full overflow-hidden rounded-xl border border-zinc-200 bg-zinc-950 text-left shadow-sm dark:border-zinc-800">
        <div className="flex items-center justify-between gap-2 border-b border-white/10 px-4 py-2">
          <span className="text-xs font-medium text-zinc-300">Send a test request</span>
          <CopyButton
            value={curl}
            label="Copy"
            title="Copy curl command"
            data-testid="copy-curl"
            className="!bg-white/5 !text-zinc-100 !ring-white/15 hover:!bg-white/10"
          />
        </div>
        <pre
          data-testid="curl-example"
          className="overflow-x-auto px-4 py-3 font-mono text-xs leading-relaxed whitespace-pre-wrap text-zinc-100 [overflow-wrap:anywhere]"
        >
          <span className="text-zinc-400 select-none">$ </span>
          {curl}
        </pre>
      </div>
      <Button onClick={() => void sendTest()} disabled={sending} data-testid="send-test-request" className="mt-4">
        {sending ? <Spinner className="size-4" /> : <SendIcon className="size-4" />}
        Send a test request from the browser
      </Button>
      {sendError && (
        <p role="alert" className="mt-2 text-xs text-amber-800 dark:text-amber-400">
          {sendError}
        </p>
      )}
    </div>
  );
}
