"use client";
/**
 * Small building blocks of the tenant portal (buttons, badges, cards, notices, the confirm dialog, the
 * destination type icon). Colors follow the portal's brand (`--brand`, `--brand-fg`) and theme.
 */
import Link from "next/link";
import { useEffect, useId, useRef } from "react";
import { ApiError, usePortal } from "@/components/portal/api";

const focus = "focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-[var(--brand)]";
export const btn = {
  primary: `inline-flex items-center justify-center gap-1.5 rounded-md bg-[var(--brand)] px-3.5 py-2 text-sm font-semibold text-[var(--brand-fg)] shadow-sm hover:opacity-90 disabled:opacity-60 ${focus}`,
  secondary: `inline-flex items-center justify-center gap-1.5 rounded-md border border-zinc-300 bg-white px-3.5 py-2 text-sm font-medium text-zinc-800 shadow-xs hover:bg-zinc-50 disabled:opacity-60 dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-100 dark:hover:bg-zinc-800 ${focus}`,
  danger: `inline-flex items-center justify-center gap-1.5 rounded-md bg-red-700 px-3.5 py-2 text-sm font-semibold text-white shadow-sm hover:bg-red-800 disabled:opacity-60 ${focus}`,
  dangerOutline: `inline-flex items-center justify-center gap-1.5 rounded-md border border-red-300 bg-white px-3.5 py-2 text-sm font-medium text-red-700 hover:bg-red-50 disabled:opacity-60 dark:border-red-900 dark:bg-zinc-900 dark:text-red-300 dark:hover:bg-red-950 ${focus}`,
  small: `inline-flex items-center justify-center gap-1 rounded-md border border-zinc-300 bg-white px-2.5 py-1 text-xs font-medium text-zinc-800 hover:bg-zinc-50 disabled:opacity-60 dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-100 dark:hover:bg-zinc-800 ${focus}`,
  link: `rounded-sm font-medium text-zinc-900 underline decoration-[var(--brand)] decoration-2 underline-offset-4 hover:decoration-4 dark:text-zinc-100 ${focus}`,
};

export function Card({ children, className = "" }: { children: React.ReactNode; className?: string }) {
  return <section className={`rounded-lg border border-zinc-200 bg-white shadow-xs dark:border-zinc-800 dark:bg-zinc-900/60 ${className}`}>{children}</section>;
}

export function CardHeader({ title, description, actions, id }: { title: string; description?: React.ReactNode; actions?: React.ReactNode; id?: string }) {
  return (
    <div className="flex flex-wrap items-start justify-between gap-3 border-b border-zinc-200 px-4 py-3 sm:px-5 dark:border-zinc-800">
      <div className="min-w-0">
        <h2 id={id} className="text-base font-semibold text-zinc-900 dark:text-zinc-50">
          {title}
        </h2>
        {description && <p className="mt-0.5 text-sm text-zinc-600 dark:text-zinc-400">{description}</p>}
      </div>
      {actions && <div className="flex flex-wrap gap-2">{actions}</div>}
    </div>
  );
}

type Tone = "green" | "red" | "zinc" | "amber";
const tones: Record<Tone, string> = {
  green: "bg-emerald-50 text-emerald-800 ring-emerald-600/25 dark:bg-emerald-950/60 dark:text-emerald-300 dark:ring-emerald-400/30",
  red: "bg-red-50 text-red-800 ring-red-600/25 dark:bg-red-950/60 dark:text-red-300 dark:ring-red-400/30",
  zinc: "bg-zinc-100 text-zinc-700 ring-zinc-500/25 dark:bg-zinc-800 dark:text-zinc-300 dark:ring-zinc-400/25",
  amber: "bg-amber-50 text-amber-900 ring-amber-600/30 dark:bg-amber-950/60 dark:text-amber-200 dark:ring-amber-400/30",
};
export function Badge({ tone, children }: { tone: Tone; children: React.ReactNode }) {
  return <span className={`inline-flex items-center gap-1 rounded-full px-2 py-0.5 text-xs font-medium ring-1 ring-inset ${tones[tone]}`}>{children}</span>;
}

export function EnabledBadge({ disabledAt }: { disabledAt: string | null }) {
  return disabledAt ? <Badge tone="zinc">Disabled</Badge> : <Badge tone="green">Enabled</Badge>;
}

export function AttemptBadge({ status }: { status: "success" | "failed" }) {
  return status === "success" ? <Badge tone="green">Delivered</Badge> : <Badge tone="red">Failed</Badge>;
}

/** A destination type's icon (the schema's SVG) drawn as a CSS mask, so it takes the text color and never runs as markup. */
export function TypeIcon({ svg, className = "size-5" }: { svg: string | undefined; className?: string }) {
  if (!svg) return <span className={`${className} inline-block rounded bg-zinc-300 dark:bg-zinc-700`} aria-hidden />;
  const url = `url("data:image/svg+xml,${encodeURIComponent(svg)}")`;
  return <span aria-hidden className={`${className} inline-block shrink-0 bg-current`} style={{ maskImage: url, WebkitMaskImage: url, maskSize: "contain", maskRepeat: "no-repeat", maskPosition: "center" }} />;
}

/** What went wrong, in words: an ended session (401), a missing resource (404), or the server's message. */
export function ErrorNotice({ error, what, retry }: { error: unknown; what: string; retry?: () => void }) {
  const { organizationName } = usePortal();
  const e = error instanceof ApiError ? error : null;
  let message: React.ReactNode;
  if (e?.status === 401)
    message = (
      <>
        Your portal session has ended. Open the portal again from {organizationName ? `${organizationName}'s` : "your provider's"} dashboard.
      </>
    );
  else if (e?.status === 404) message = `${what} was not found. It may have been deleted.`;
  else if (e?.status === 403) message = `You are not allowed to see ${what.toLowerCase()}.`;
  else message = `Could not load ${what.toLowerCase()}: ${e?.message ?? String(error)}`;
  return (
    <div role="alert" className="flex flex-wrap items-center justify-between gap-3 rounded-md border border-red-300 bg-red-50 px-4 py-3 text-sm text-red-800 dark:border-red-900 dark:bg-red-950/60 dark:text-red-200">
      <p>{message}</p>
      {retry && e?.status !== 401 && e?.status !== 404 && (
        <button type="button" onClick={retry} className={btn.small}>
          Try again
        </button>
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

export function Skeleton({ lines = 3 }: { lines?: number }) {
  return (
    <div className="space-y-3 p-5" aria-busy="true" aria-label="Loading">
      {Array.from({ length: lines }, (_, i) => (
        <div key={i} className="h-4 animate-pulse rounded bg-zinc-200 dark:bg-zinc-800" style={{ width: `${90 - i * 15}%` }} />
      ))}
    </div>
  );
}

/** A modal confirmation (native `<dialog>`: focus kept inside, Escape cancels). */
export function ConfirmDialog(p: { open: boolean; title: string; children: React.ReactNode; confirmLabel: string; danger?: boolean; pending?: boolean; error?: string | null; onConfirm: () => void; onCancel: () => void }) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (p.open && !d.open) d.showModal();
    if (!p.open && d.open) d.close();
  }, [p.open]);
  return (
    <dialog
      ref={ref}
      aria-labelledby={titleId}
      onCancel={(e) => {
        e.preventDefault();
        p.onCancel();
      }}
      className="m-auto w-[calc(100%-2rem)] max-w-md rounded-lg border border-zinc-200 bg-white p-0 text-zinc-900 shadow-xl backdrop:bg-zinc-950/50 dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-100"
    >
      <div className="space-y-3 p-5">
        <h2 id={titleId} className="text-base font-semibold">
          {p.title}
        </h2>
        <div className="text-sm text-zinc-700 dark:text-zinc-300">{p.children}</div>
        {p.error && (
          <p role="alert" className="text-sm font-medium text-red-700 dark:text-red-400">
            {p.error}
          </p>
        )}
      </div>
      <div className="flex flex-wrap justify-end gap-2 border-t border-zinc-200 px-5 py-3 dark:border-zinc-800">
        <button type="button" className={btn.secondary} onClick={p.onCancel} autoFocus>
          Cancel
        </button>
        <button type="button" className={p.danger ? btn.danger : btn.primary} onClick={p.onConfirm} disabled={p.pending}>
          {p.pending ? "Working…" : p.confirmLabel}
        </button>
      </div>
    </dialog>
  );
}

export function BackLink({ href, children }: { href: string; children: React.ReactNode }) {
  return (
    <Link href={href} className={`inline-flex items-center gap-1 rounded-sm text-sm text-zinc-700 hover:text-zinc-950 dark:text-zinc-300 dark:hover:text-white ${focus}`}>
      <span aria-hidden>←</span> {children}
    </Link>
  );
}

/** A time as a short local date and time, with the ISO form on hover. */
export function When({ iso }: { iso: string }) {
  const d = new Date(iso);
  return (
    <time dateTime={iso} title={iso}>
      {d.toLocaleString(undefined, { month: "short", day: "numeric", hour: "2-digit", minute: "2-digit", second: "2-digit" })}
    </time>
  );
}
