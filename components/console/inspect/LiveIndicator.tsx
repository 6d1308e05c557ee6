export type LiveState = "connecting" | "live" | "reconnecting" | "offline";

const LABEL: Record<LiveState, string> = {
  connecting: "Connecting…",
  live: "Live",
  reconnecting: "Reconnecting…",
  offline: "Offline",
};

/** Whether live updates are flowing: a pulsing green dot when they are. */
export function LiveIndicator({ state }: { state: LiveState }) {
  const dot = state === "live" ? "bg-emerald-500" : state === "offline" ? "bg-zinc-400" : "bg-amber-500";
  return (
    <span
      data-testid="live-indicator"
      data-state={state}
      role="status"
      aria-live="polite"
      title={
        state === "live"
          ? "New requests appear instantly"
          : state === "offline"
            ? "Live updates unavailable; refreshing every few seconds"
            : "Connecting to live updates"
      }
      className="inline-flex h-7 items-center gap-2 rounded-full border border-zinc-200 bg-white px-2.5 text-xs font-medium text-zinc-700 dark:border-zinc-800 dark:bg-zinc-900 dark:text-zinc-300"
    >
      <span className="relative flex size-2">
        {state === "live" && <span className="absolute inline-flex size-full animate-ping rounded-full bg-emerald-400 opacity-60" />}
        <span className={`relative inline-flex size-2 rounded-full ${dot}`} />
      </span>
      {LABEL[state]}
    </span>
  );
}
