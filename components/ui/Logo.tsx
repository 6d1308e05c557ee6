"use client";

import Link from "next/link";
import { useId } from "react";

/**
 * The Hookyard mark, the app's one logo (console, dashboard, sign-in, 404): a hook on a rounded tile, the
 * same drawing as public/favicon.svg. Its gradient has an id of its own per mark, so a mark hidden with
 * `display: none` (the dashboard's phone header) never blanks another one on the page.
 */
export function LogoMark({ className = "size-7" }: { className?: string }) {
  const gradient = `hy-logo-bg-${useId().replace(/[^a-zA-Z0-9_-]/g, "")}`;
  return (
    <svg viewBox="0 0 32 32" xmlns="http://www.w3.org/2000/svg" aria-hidden className={className}>
      <defs>
        <linearGradient id={gradient} x1="0" y1="0" x2="1" y2="1">
          <stop offset="0" stopColor="#6366f1" />
          <stop offset="1" stopColor="#8b5cf6" />
        </linearGradient>
      </defs>
      <rect width="32" height="32" rx="8" fill={`url(#${gradient})`} />
      <circle cx="19" cy="7.25" r="2.25" fill="none" stroke="#fff" strokeWidth="2.2" />
      <path d="M19 9.5V19a6 6 0 0 1-12 0v-3.5l3.25 3.25" fill="none" stroke="#fff" strokeWidth="2.6" strokeLinecap="round" strokeLinejoin="round" />
    </svg>
  );
}

/** The mark and the name, linking home. */
export function Logo() {
  return (
    <Link
      href="/"
      className="group inline-flex items-center gap-2 rounded-md focus-visible:outline-2 focus-visible:outline-offset-4 focus-visible:outline-[var(--hy-focus)]"
      aria-label="Hookyard home"
    >
      <LogoMark className="size-7 transition group-hover:rotate-[-6deg]" />
      <span className="text-[15px] font-semibold tracking-tight text-zinc-900 dark:text-zinc-50">Hookyard</span>
    </Link>
  );
}
