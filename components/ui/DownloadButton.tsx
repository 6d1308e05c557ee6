"use client";

import { useState } from "react";
import { buttonClasses } from "@/components/ui/Button";
import { DownloadIcon } from "@/components/ui/icons";

/**
 * Where a download's bytes come from: a same-origin URL answering them as an attachment (the console's
 * `/{id}/requests/{request_id}/raw`), or a function fetching them (the gateway API's `raw_body`, which
 * answers JSON), or text held in the page.
 */
export type DownloadSource = { href: string } | { load: () => Promise<Blob> } | { text: string; type?: string };

/** Saves `blob` as `name` through a temporary blob URL (revoked right after the click). */
export function saveBlob(blob: Blob, name: string) {
  const url = URL.createObjectURL(blob);
  const a = document.createElement("a");
  a.href = url;
  a.download = name;
  a.rel = "nofollow";
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 0);
}

/**
 * The kit's download control (docs/dashboard.md "Bodies"): a plain `<a download>` for a URL source, else a
 * button building a blob and saving it as `name`. Says "Download failed" when a loader throws.
 */
export function DownloadButton({
  source,
  name,
  label = "Download",
  title,
  "data-testid": testId = "download-body",
}: {
  source: DownloadSource;
  name: string;
  label?: string;
  title?: string;
  "data-testid"?: string;
}) {
  const [failed, setFailed] = useState(false);
  const cls = buttonClasses("secondary", "xs", "gap-1");
  if ("href" in source) {
    return (
      <a href={source.href} download={name} rel="nofollow" data-testid={testId} title={title ?? label} className={cls}>
        <DownloadIcon className="size-3.5" />
        {label}
      </a>
    );
  }
  const onClick = async () => {
    try {
      const blob = "load" in source ? await source.load() : new Blob([source.text], { type: source.type ?? "text/plain" });
      saveBlob(blob, name);
      setFailed(false);
    } catch {
      setFailed(true);
    }
  };
  return (
    <button type="button" onClick={() => void onClick()} data-testid={testId} title={title ?? label} className={cls}>
      <DownloadIcon className="size-3.5" />
      <span aria-live="polite">{failed ? "Download failed" : label}</span>
    </button>
  );
}
