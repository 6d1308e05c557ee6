"use client";

import { formatDuration, formatRelative, formatZoned } from "@/components/ui/format";
import { useHydrated, useNow } from "@/components/ui/hooks";

/**
 * The UI's one time format (docs/dashboard.md "One kit"): "3m ago", live, with the exact local time and
 * its zone in the tooltip (the ISO form until hydrated).
 */
export function RelativeTime({ iso, className }: { iso: string | null | undefined; className?: string }) {
  const now = useNow();
  const hydrated = useHydrated();
  if (!iso) return <span className={className}>—</span>;
  return (
    <time dateTime={iso} title={hydrated ? formatZoned(iso) : iso} className={className}>
      {now == null ? "\u00a0" : formatRelative(iso, now)}
    </time>
  );
}

/** The exact moment, written out: the same form as {@link RelativeTime}'s tooltip (one absolute format in the UI). */
export function AbsoluteTime(props: { iso: string | null | undefined; className?: string }) {
  return <ZonedTime {...props} />;
}

/**
 * The viewer's local date and time with its zone shown ("Nov 26, 2026, 07:30:12.345 GMT+1"), UTC in the
 * tooltip; ISO until hydrated (the server does not know the viewer's zone). Use it where the exact moment matters.
 */
export function ZonedTime({ iso, className }: { iso: string | null | undefined; className?: string }) {
  const hydrated = useHydrated();
  if (!iso) return <span className={className}>—</span>;
  return (
    <time dateTime={iso} title={`${iso} (UTC)`} className={className}>
      {hydrated ? formatZoned(iso) : iso}
    </time>
  );
}

/** A duration in milliseconds with its unit ("61 ms", "1.5 s"); "—" when unknown. */
export function Duration({ ms, className }: { ms: number | null | undefined; className?: string }) {
  return <span className={className}>{formatDuration(ms)}</span>;
}
