"use client";

import { useEffect, useRef, useState } from "react";
import { buttonClasses, type ButtonSize } from "@/components/ui/Button";
import { cx } from "@/components/ui/cx";
import { CheckIcon, CopyIcon } from "@/components/ui/icons";

/**
 * Copies `text`: the async clipboard where the page is a secure context, else (plain-http LAN origins, where
 * `navigator.clipboard` is absent) a selected off-screen textarea and `execCommand("copy")`. The textarea goes
 * next to `anchor` (inside an open modal dialog everything outside it is inert and cannot be selected), and
 * focus goes back to `anchor`. Answers whether the text reached the clipboard; never throws.
 */
export async function copyText(text: string, anchor?: HTMLElement | null): Promise<boolean> {
  try {
    if (navigator.clipboard && window.isSecureContext) {
      await navigator.clipboard.writeText(text);
      return true;
    }
  } catch {
    /* fall back below */
  }
  // Plain-http deployments have no async clipboard: the old textarea trick still works there.
  const area = document.createElement("textarea");
  area.value = text;
  area.setAttribute("readonly", "");
  area.style.position = "fixed";
  area.style.opacity = "0";
  (anchor?.parentElement ?? document.body).appendChild(area);
  area.focus();
  area.select();
  let ok = false;
  try {
    ok = document.execCommand("copy");
  } catch {
    ok = false;
  }
  area.remove();
  anchor?.focus();
  return ok;
}

type Props = {
  /** The text to copy, or a function computing it at click time. */
  value: string | (() => string);
  label?: string;
  /** Accessible name; defaults to `label` or "Copy". */
  title?: string;
  /** A kit button size; default "xs". */
  size?: ButtonSize;
  className?: string;
  "data-testid"?: string;
};

/**
 * A button copying `value` to the clipboard (the async clipboard, or the textarea fallback on plain
 * http); says "Copied" (or "Copy failed") for a moment, announced to screen readers.
 */
export function CopyButton({ value, label, title, size = "xs", className = "", ...rest }: Props) {
  const [state, setState] = useState<"idle" | "copied" | "failed">("idle");
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  useEffect(
    () => () => {
      if (timer.current) clearTimeout(timer.current);
    },
    [],
  );

  const onClick = async (button: HTMLButtonElement) => {
    const ok = await copyText(typeof value === "function" ? value() : value, button);
    setState(ok ? "copied" : "failed");
    if (timer.current) clearTimeout(timer.current);
    timer.current = setTimeout(() => setState("idle"), 1600);
  };

  const text = state === "copied" ? "Copied" : state === "failed" ? "Copy failed" : label;
  // Visible feedback (docs/dashboard.md "One kit"): the label becomes "Copied" or "Copy failed"; an icon-only button shows it beside itself.
  return (
    <button
      type="button"
      onClick={(e) => void onClick(e.currentTarget)} // never rejects: copyText answers false on failure
      title={title ?? label ?? "Copy"}
      aria-label={title ?? label ?? "Copy"}
      data-testid={rest["data-testid"]}
      data-copy-state={state}
      className={buttonClasses("secondary", size, cx("relative", className))}
    >
      {state === "copied" ? <CheckIcon className="size-3.5 text-emerald-600 dark:text-emerald-400" /> : <CopyIcon className="size-3.5" />}
      {text ? (
        <span aria-live="polite">{text}</span>
      ) : (
        // An icon-only button shows the outcome beside itself, so a failed copy is never silent.
        <span
          aria-live="polite"
          className={
            state === "idle"
              ? "sr-only"
              : cx(
                  "pointer-events-none absolute top-1/2 right-full mr-1.5 -translate-y-1/2 rounded px-1.5 py-0.5 text-[11px] font-medium whitespace-nowrap shadow-sm",
                  state === "copied" ? "bg-zinc-900 text-white dark:bg-zinc-100 dark:text-zinc-900" : "bg-rose-700 text-white",
                )
          }
        >
          {state === "copied" ? "Copied" : state === "failed" ? "Copy failed" : ""}
        </span>
      )}
    </button>
  );
}
