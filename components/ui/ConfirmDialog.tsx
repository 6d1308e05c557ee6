"use client";

import { useEffect, useId, useRef, useState } from "react";
import { Button, type ButtonVariant } from "@/components/ui/Button";

/**
 * A modal confirmation (native `<dialog>`: focus kept inside, Escape cancels, Cancel focused first).
 * `danger` makes the confirm button red; otherwise it is `confirmVariant` (primary, or the portal's brand).
 */
export function ConfirmDialog(p: {
  open: boolean;
  title: string;
  children: React.ReactNode;
  confirmLabel: string;
  danger?: boolean;
  confirmVariant?: ButtonVariant;
  pending?: boolean;
  error?: string | null;
  onConfirm: () => void;
  onCancel: () => void;
}) {
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
          <p role="alert" className="text-sm font-medium text-rose-700 dark:text-rose-400">
            {p.error}
          </p>
        )}
      </div>
      <div className="flex flex-wrap justify-end gap-2 border-t border-zinc-200 px-5 py-3 dark:border-zinc-800">
        <Button onClick={p.onCancel} autoFocus>
          Cancel
        </Button>
        <Button variant={p.danger ? "danger" : (p.confirmVariant ?? "primary")} onClick={p.onConfirm} disabled={p.pending}>
          {p.pending ? "Working…" : p.confirmLabel}
        </Button>
      </div>
    </dialog>
  );
}

/** What {@link useConfirm}'s `confirm` asks: the dialog's title, body and button, and what a yes does. */
export type ConfirmRequest = { title: string; body?: React.ReactNode; confirmLabel: string; danger?: boolean; onConfirm: () => void };

/**
 * The styled replacement of `window.confirm` (docs/dashboard.md "One kit"): render `dialog` once in the
 * component and call `confirm({...})` from a button; `onConfirm` runs after the yes, Cancel and Escape do
 * nothing. Danger (a red button) unless `danger: false`.
 */
export function useConfirm(): { dialog: React.ReactNode; confirm: (request: ConfirmRequest) => void } {
  const [request, setRequest] = useState<ConfirmRequest | null>(null);
  const dialog = (
    <ConfirmDialog
      open={request != null}
      title={request?.title ?? ""}
      confirmLabel={request?.confirmLabel ?? "Confirm"}
      danger={request?.danger ?? true}
      onCancel={() => setRequest(null)}
      onConfirm={() => {
        request?.onConfirm();
        setRequest(null);
      }}
    >
      {request?.body}
    </ConfirmDialog>
  );
  return { dialog, confirm: setRequest };
}
