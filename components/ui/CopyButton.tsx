"use client";

import { useEffect, useRef, useState } from "react";
import { buttonClasses, type ButtonSize } from "@/components/ui/Button";
import { CheckIcon, CopyIcon } from "@/components/ui/icons";

async function copyText(text: string): Promise<boolean> {
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
  document.body.appendChild(area);
  area.select();
  let ok = false;
  try {
    ok = document.execCommand("copy");
  } catch {
    ok = false;
  }
  area.remove();
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

  const onClick = async () => {
    const ok = await copyText(typeof value === "function" ? value() : value);
    setState(ok ? "copied" : "failed");
    if (timer.current) clearTimeout(timer.current);
    timer.current = setTimeout(() => setState("idle"), 1600);
  };

  const text = state === "copied" ? "Copied" : state === "failed" ? "Copy failed" : label;
  return (
    <button
      type="button"
      onClick={() => void onClick()} // never rejects: copyText answers false on failure
      title={title ?? label ?? "Copy"}
      aria-label={title ?? label ?? "Copy"}
      data-testid={rest["data-testid"]}
      className={buttonClasses("secondary", size, className)}
    >
      {state === "copied" ? <CheckIcon className="size-3.5 text-emerald-600 dark:text-emerald-400" /> : <CopyIcon className="size-3.5" />}
      {text ? (
        <span aria-live="polite">{text}</span>
      ) : (
        <span className="sr-only" aria-live="polite">
          {state === "copied" ? "Copied" : ""}
        </span>
      )}
    </button>
  );
}
