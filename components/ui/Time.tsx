"use client";

import { formatAbsolute, formatRelative } from "@/components/ui/format";
import { useHydrated, useNow } from "@/components/ui/hooks";

/** "3m ago", live; the exact local time in the tooltip. */
export function RelativeTime({ iso, className }: { iso: string | null | undefined; className?: string }) {
  const now = useNow();
  const hydrated = useHydrated();
  if (!iso) return <span className={className}>—</span>;
  return (
    <time dateTime={iso} title={hydrated ? formatAbsolute(iso) : iso} className={className}>
      {now == null ? "\u00a0" : formatRelative(iso, now)}
    </time>
  );
}

/** The exact local date and time (ISO until hydrated, since the server does not know the visitor's zone). */
export function AbsoluteTime({ iso, className }: { iso: string | null | undefined; className?: string }) {
  const hydrated = useHydrated();
  if (!iso) return <span className={className}>—</span>;
  return (
    <time dateTime={iso} className={className}>
      {hydrated ? formatAbsolute(iso) : iso}
    </time>
  );
}
