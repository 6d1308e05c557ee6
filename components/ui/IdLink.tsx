"use client";

import Link from "next/link";
import { CopyButton } from "@/components/ui/CopyButton";

/**
 * A record's id as a link to its page (`href`), in monospace, with a button copying the id; `label`
 * (e.g. a name) replaces the id as the link text, the id then being the tooltip. No `href`: the id as text.
 */
export function IdLink({ id, href, label, testId }: { id: string; href?: string; label?: string; testId?: string }) {
  const text = label ?? id;
  return (
    <span className="inline-flex max-w-full items-center gap-1.5">
      {href ? (
        <Link
          href={href}
          title={label ? id : undefined}
          data-testid={testId}
          className={`truncate text-indigo-700 underline-offset-2 hover:underline dark:text-indigo-300 ${label ? "text-sm" : "font-mono text-xs"}`}
        >
          {text}
        </Link>
      ) : (
        <span className={label ? "truncate text-sm" : "truncate font-mono text-xs"} title={label ? id : undefined} data-testid={testId}>
          {text}
        </span>
      )}
      <CopyButton value={id} title={`Copy ${id}`} size="xs" />
    </span>
  );
}
