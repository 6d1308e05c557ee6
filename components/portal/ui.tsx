"use client";
/**
 * The tenant portal's own pieces on top of the kit (components/ui/: Button, Badge, Card, ConfirmDialog,
 * Skeleton, BackLink): its status badges, the session-aware error notice, the empty state with an icon, the
 * destination type icon and times. Primary buttons take the portal's brand (`--brand`, `--brand-fg`).
 */
import { ApiError, usePortal } from "@/components/portal/api";
import { Badge } from "@/components/ui/Badge";
import { Button, buttonClasses } from "@/components/ui/Button";
import { RelativeTime } from "@/components/ui/Time";

/** Kit button classes for the portal's links and buttons: `primary` is the brand colour (docs/portal.md). */
export const btn = {
  primary: buttonClasses("brand"),
  secondary: buttonClasses("secondary"),
  danger: buttonClasses("danger"),
  dangerOutline: buttonClasses("dangerOutline"),
  small: buttonClasses("secondary", "sm"),
};

export function EnabledBadge({ disabledAt }: { disabledAt: string | null }) {
  return disabledAt ? <Badge tone="neutral">Disabled</Badge> : <Badge tone="success">Enabled</Badge>;
}

export function AttemptBadge({ status }: { status: "success" | "failed" }) {
  return status === "success" ? <Badge tone="success">Delivered</Badge> : <Badge tone="danger">Failed</Badge>;
}

/** A destination type's icon (the schema's SVG) drawn as a CSS mask, so it takes the text color and never runs as markup. */
export function TypeIcon({ svg, className = "size-5" }: { svg: string | undefined; className?: string }) {
  if (!svg) return <span className={`${className} inline-block rounded bg-zinc-300 dark:bg-zinc-700`} aria-hidden />;
  const url = `url("data:image/svg+xml,${encodeURIComponent(svg)}")`;
  return (
    <span
      aria-hidden
      className={`${className} inline-block shrink-0 bg-current`}
      style={{ maskImage: url, WebkitMaskImage: url, maskSize: "contain", maskRepeat: "no-repeat", maskPosition: "center" }}
    />
  );
}

/** What went wrong, in words: an ended session (401), a missing resource (404), or the server's message. */
// `retry` is typically a query's refetch: its promise never rejects (the query's state shows the outcome), so it is not awaited.
export function ErrorNotice({ error, what, retry }: { error: unknown; what: string; retry?: () => unknown }) {
  const { organizationName } = usePortal();
  const e = error instanceof ApiError ? error : null;
  let message: React.ReactNode;
  if (e?.status === 401)
    message = <>Your portal session has ended. Open the portal again from {organizationName ? `${organizationName}'s` : "your provider's"} dashboard.</>;
  else if (e?.status === 404) message = `${what} was not found. It may have been deleted.`;
  else if (e?.status === 403) message = `You are not allowed to see ${what.toLowerCase()}.`;
  else message = `Could not load ${what.toLowerCase()}: ${e?.message ?? String(error)}`;
  return (
    <div
      role="alert"
      className="flex flex-wrap items-center justify-between gap-3 rounded-md border border-red-300 bg-red-50 px-4 py-3 text-sm text-red-800 dark:border-red-900 dark:bg-red-950/60 dark:text-red-200"
    >
      <p>{message}</p>
      {retry && e?.status !== 401 && e?.status !== 404 && (
        <Button size="sm" onClick={retry}>
          Try again
        </Button>
      )}
    </div>
  );
}

export function EmptyState({ title, children, action }: { title: string; children?: React.ReactNode; action?: React.ReactNode }) {
  return (
    <div className="flex flex-col items-center gap-3 px-6 py-12 text-center">
      <div className="grid size-12 place-items-center rounded-full bg-zinc-100 text-zinc-500 dark:bg-zinc-800 dark:text-zinc-400" aria-hidden>
        <svg viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth="1.8" className="size-6">
          <path d="M4 13h4l2 3h4l2-3h4M4 13l2.5-7h11L20 13v5a1 1 0 0 1-1 1H5a1 1 0 0 1-1-1z" strokeLinejoin="round" />
        </svg>
      </div>
      <h3 className="text-sm font-semibold text-zinc-900 dark:text-zinc-100">{title}</h3>
      {children && <p className="max-w-md text-sm text-zinc-600 dark:text-zinc-400">{children}</p>}
      {action}
    </div>
  );
}

/** A time in the kit's one format (relative, the exact zoned time on hover: components/ui/Time.tsx). */
export function When({ iso }: { iso: string }) {
  return <RelativeTime iso={iso} />;
}
