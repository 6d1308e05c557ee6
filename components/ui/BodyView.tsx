"use client";

import { useEffect, useMemo, useState } from "react";
import { CopyButton } from "@/components/ui/CopyButton";
import { DownloadButton, type DownloadSource } from "@/components/ui/DownloadButton";
import { formatBytes } from "@/components/ui/format";
import { JsonView } from "@/components/ui/JsonView";

/** Bytes a hex dump shows (4,096 lines of 16); the rest is in the download. */
const HEX_MAX = 64 * 1024;

/** Image types previewed as an image; SVG is not one of them (it is a document that can carry scripts). */
const IMAGE_TYPES = /^image\/(png|jpeg|gif|webp|avif|bmp|x-icon|vnd\.microsoft\.icon)$/;

/** The bare media type of a Content-Type header value (`image/png; q=1` → `image/png`), lower case, or "". */
export function mediaType(contentType: string | null | undefined): string {
  return (contentType ?? "").split(";")[0].trim().toLowerCase();
}

/** Whether a body of `contentType` is previewed as an image (never SVG). */
export function isPreviewableImage(contentType: string | null | undefined): boolean {
  return IMAGE_TYPES.test(mediaType(contentType));
}

/** The bytes of a base64 string (an invalid one gives the bytes `atob` could read: none). */
export function base64Bytes(b64: string): Uint8Array {
  try {
    const bin = atob(b64.replace(/\s+/g, ""));
    const out = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
    return out;
  } catch {
    return new Uint8Array(0);
  }
}

/** A classic hex dump of `bytes`: offset, 16 bytes in hex, and their printable ASCII (`.` for the others). */
export function hexDump(bytes: Uint8Array, max = HEX_MAX): string {
  const lines: string[] = [];
  const n = Math.min(bytes.length, max);
  for (let at = 0; at < n; at += 16) {
    const row = bytes.subarray(at, Math.min(at + 16, n));
    const hex = Array.from(row, (b) => b.toString(16).padStart(2, "0")).join(" ");
    const ascii = Array.from(row, (b) => (b >= 0x20 && b < 0x7f ? String.fromCharCode(b) : ".")).join("");
    lines.push(`${at.toString(16).padStart(8, "0")}  ${hex.padEnd(47)}  ${ascii}`);
  }
  return lines.join("\n");
}

const PRE =
  "max-h-96 overflow-auto rounded-md border border-zinc-200 bg-zinc-50 p-3 font-mono text-xs text-zinc-900 dark:border-zinc-800 dark:bg-zinc-900 dark:text-zinc-100";

/**
 * Says plainly that a body is a cut preview ("First 64 KiB of 200 KiB shown"), with a way to the whole
 * body when there is one (`download`).
 */
export function CutNotice({ shown, total, download, name }: { shown: number; total?: number | null; download?: DownloadSource; name?: string }) {
  return (
    <p
      role="status"
      data-testid="body-cut-notice"
      className="flex flex-wrap items-center gap-2 rounded-md border border-amber-300/70 bg-amber-50 px-3 py-1.5 text-xs text-amber-900 dark:border-amber-500/30 dark:bg-amber-500/10 dark:text-amber-200"
    >
      <span>
        {`Cut preview: first ${formatBytes(shown)}${total ? ` of ${formatBytes(total)} (${total.toLocaleString("en")} bytes)` : ""} shown.`}
        {download ? " The download has every byte." : ""}
      </span>
      {download && <DownloadButton source={download} name={name ?? "body.bin"} label="Download raw body" data-testid="cut-download" />}
    </p>
  );
}

/**
 * An image body shown as an image (never as markup): from the preview's base64 as a `data:` URL when it is
 * whole, else from `raw` as a blob URL (revoked on unmount).
 */
export function ImagePreview({ contentType, base64, raw }: { contentType: string; base64?: string | null; raw?: () => Promise<Blob> }) {
  const type = mediaType(contentType);
  const [src, setSrc] = useState<string | null>(base64 ? `data:${type};base64,${base64}` : null);
  const [failed, setFailed] = useState(false);
  useEffect(() => {
    if (base64 || !raw) return;
    let url: string | null = null;
    let live = true;
    raw().then(
      (blob) => {
        if (!live) return;
        url = URL.createObjectURL(new Blob([blob], { type }));
        setSrc(url);
      },
      () => live && setFailed(true),
    );
    return () => {
      live = false;
      if (url) URL.revokeObjectURL(url);
    };
  }, [base64, raw, type]);
  if (failed) return <p className="text-xs text-zinc-600 dark:text-zinc-400">The image could not be loaded.</p>;
  if (!src) return <p className="text-xs text-zinc-600 dark:text-zinc-400">Loading image…</p>;
  return (
    // A data: or blob: URL of the body's bytes: next/image has nothing to optimise here.
    // eslint-disable-next-line @next/next/no-img-element -- a captured body's bytes, not a site asset
    <img
      src={src}
      alt={`Body preview (${type})`}
      data-testid="body-image"
      className="max-h-80 max-w-full rounded-md border border-zinc-200 bg-[repeating-conic-gradient(#e4e4e7_0_25%,transparent_0_50%)] bg-[length:16px_16px] object-contain dark:border-zinc-800"
    />
  );
}

/** A binary body: its hex dump (first 64 KiB) and its base64, each copyable. */
export function BinaryView({ base64, testId }: { base64: string; testId?: string }) {
  const bytes = useMemo(() => base64Bytes(base64), [base64]);
  const hex = useMemo(() => hexDump(bytes), [bytes]);
  return (
    <div className="space-y-2">
      <div>
        <div className="mb-1 flex items-center justify-between gap-2">
          <h4 className="text-xs font-medium text-zinc-600 dark:text-zinc-400">{`Hex${bytes.length > HEX_MAX ? ` (first ${formatBytes(HEX_MAX)})` : ""}`}</h4>
          <CopyButton value={hex} label="Copy hex" data-testid="copy-hex" />
        </div>
        <pre data-testid="body-hex" tabIndex={0} aria-label="Hex dump" className={`${PRE} whitespace-pre`}>
          {hex}
        </pre>
      </div>
      <div>
        <div className="mb-1 flex items-center justify-between gap-2">
          <h4 className="text-xs font-medium text-zinc-600 dark:text-zinc-400">Base64</h4>
          <CopyButton value={base64} label="Copy base64" data-testid="copy-base64" />
        </div>
        <pre data-testid={testId ?? "body-base64"} data-body-kind="base64" tabIndex={0} aria-label="Base64" className={`${PRE} break-all whitespace-pre-wrap`}>
          {base64}
        </pre>
      </div>
    </div>
  );
}

/** A body as the gateway API previews it (docs/gateway-api.md "Requests"). */
export type BodyPreviewProps = {
  /** Parsed JSON, text, or base64, as `encoding` says (absent: guessed from the value). */
  body: unknown;
  encoding?: "json" | "text" | "base64" | null;
  contentType?: string | null;
  /** Bytes of the whole body, when known. */
  size?: number | null;
  /** Whether `body` is only the first 64 KiB. */
  truncated?: boolean;
  /** The exact bytes (the raw endpoint), for Download, the cut notice and image previews. */
  raw?: () => Promise<Blob>;
  testId?: string;
  empty?: string;
};

/** Bytes of a cut preview (lib/http/body-preview.ts PREVIEW_BODY_BYTES). */
export const PREVIEW_BYTES = 64 * 1024;

/**
 * Any body shown in the UI (docs/dashboard.md "Bodies"): JSON as a folding tree, text as text, binary as
 * hex and base64, a previewable image also as an image; a cut preview says so; Copy and Download always.
 * Text only, never markup.
 */
export function BodyView({ body, encoding, contentType, size, truncated, raw, testId, empty }: BodyPreviewProps) {
  const download: DownloadSource | undefined = raw ? { load: raw } : undefined;
  const whole64 = encoding === "base64" && !truncated && typeof body === "string" ? body : null;
  const image = isPreviewableImage(contentType) && body !== null && body !== undefined && (whole64 !== null || !!raw);
  const notice = truncated ? <CutNotice shown={PREVIEW_BYTES} total={size} download={download} name="body.bin" /> : null;
  if (encoding === "base64" && typeof body === "string") {
    const source = download ?? { load: () => Promise.resolve(new Blob([base64Bytes(body).slice().buffer], { type: "application/octet-stream" })) };
    return (
      <div className="space-y-2">
        {notice}
        <div className="flex justify-end">
          <DownloadButton source={source} name="body.bin" />
        </div>
        {image && <ImagePreview contentType={contentType!} base64={whole64} raw={raw} />}
        <BinaryView base64={body} testId={testId} />
      </div>
    );
  }
  return (
    <div className="space-y-2">
      {image && <ImagePreview contentType={contentType!} raw={raw} />}
      <JsonView value={body} testId={testId} empty={empty} download={download} fileName={encoding === "json" ? "body.json" : undefined} notice={notice} />
    </div>
  );
}
