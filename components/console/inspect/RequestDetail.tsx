"use client";

import { useCallback } from "react";
import type { TCapturedRequest } from "@/lib/console/schemas";
import { requestPath } from "@/components/console/api";
import { buttonClasses } from "@/components/ui/Button";
import { CopyButton } from "@/components/ui/CopyButton";
import { formatBytes } from "@/components/ui/format";
import { fullPath, isNeutralRejection } from "@/components/console/format";
import { DownloadIcon } from "@/components/ui/icons";
import { AbsoluteTime, RelativeTime } from "@/components/ui/Time";
import { MethodBadge, RejectionBadge, Tag } from "@/components/console/inspect/badges";
import { JsonTree } from "@/components/ui/JsonView";
import { BinaryView, CutNotice, ImagePreview, isPreviewableImage, PREVIEW_BYTES } from "@/components/ui/BodyView";
import { Deliveries } from "@/components/console/inspect/Deliveries";
import { KeyValueTable } from "@/components/ui/KeyValueTable";
import { Field, Section } from "@/components/console/inspect/Section";

type BodyView = { kind: "json" | "text" | "base64" | "none"; text: string };

function bodyView(r: TCapturedRequest): BodyView {
  const body = r.body;
  if (body === null || body === undefined) return { kind: "none", text: "" };
  if (r.body_encoding === "json" || typeof body === "object") {
    try {
      return { kind: "json", text: JSON.stringify(body, null, 2) ?? "" };
    } catch {
      return { kind: "text", text: Object.prototype.toString.call(body) }; // what String() gives an object JSON cannot write
    }
  }
  if (r.body_encoding === "base64") return { kind: "base64", text: String(body) };
  return { kind: "text", text: String(body) };
}

function queryRows(query: string | undefined): [string, string][] {
  if (!query) return [];
  try {
    return Array.from(new URLSearchParams(query));
  } catch {
    return [];
  }
}

function isForm(contentType: string | null | undefined): boolean {
  return !!contentType && contentType.toLowerCase().includes("application/x-www-form-urlencoded");
}

/** Everything about one captured request. All captured content is rendered as text. `owner`: the visitor may retry it. */
export function RequestDetail({ publicId, request: r, owner }: { publicId: string; request: TCapturedRequest; owner: boolean }) {
  const headers: [string, string][] = Object.entries(r.headers ?? {}).map(([k, v]) => [k, String(v)]);
  const query = queryRows(r.query);
  const body = bodyView(r);
  const path = fullPath(r.path, r.query);
  const formRows = body.kind === "text" && !r.body_truncated && isForm(r.content_type) ? queryRows(body.text) : [];
  const rawHref = r.id ? requestPath(publicId, r.id, "raw") : null;
  const image = isPreviewableImage(r.content_type) && (r.body_size ?? 0) > 0;
  // The exact stored bytes, for the image preview (a blob URL; never markup).
  const loadRaw = useCallback(async () => {
    const res = await fetch(rawHref!, { credentials: "same-origin" });
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    return res.blob();
  }, [rawHref]);

  return (
    <article data-testid="request-detail" data-request-id={r.id} className="space-y-4">
      <header className="space-y-3">
        <div className="flex min-w-0 items-start gap-3">
          <MethodBadge verb={r.verb} className="mt-0.5" />
          <h2 data-testid="request-path" className="min-w-0 font-mono text-sm font-medium break-all text-zinc-900 sm:text-base dark:text-zinc-50">
            {path}
          </h2>
        </div>
        <dl className="grid grid-cols-2 gap-x-6 gap-y-3 rounded-lg border border-zinc-200 bg-white p-4 shadow-xs sm:grid-cols-3 xl:grid-cols-4 dark:border-zinc-800 dark:bg-zinc-900/60">
          <Field label="Received">
            <AbsoluteTime iso={r.received_at} className="tabular-nums" />
            <RelativeTime iso={r.received_at} className="block text-xs text-zinc-600 dark:text-zinc-400" />
          </Field>
          <Field label="Method">
            <span className="font-mono">{(r.verb || "POST").toUpperCase()}</span>
          </Field>
          <Field label="Size">
            <span className="tabular-nums">{formatBytes(r.body_size)}</span>
          </Field>
          <Field label="Content type">
            <span className="font-mono text-xs break-all">{r.content_type || "—"}</span>
          </Field>
          {/* Verification and rejections matter for gateway sources; a plain test URL shows them only when they say something. */}
          {r.verified && (
            <Field label="Verified">
              <span className="inline-flex items-center gap-1 text-emerald-700 dark:text-emerald-400">
                <span className="size-1.5 rounded-full bg-current" aria-hidden /> Yes
              </span>
            </Field>
          )}
          {r.rejection_cause && !isNeutralRejection(r.rejection_cause) && (
            <Field label="Rejection">
              <span className="flex flex-col items-start gap-1">
                <RejectionBadge cause={r.rejection_cause} />
                <span data-testid="rejection-cause" className="font-mono text-[11px] break-all text-zinc-600 dark:text-zinc-400">
                  {r.rejection_cause}
                </span>
              </span>
            </Field>
          )}
          <Field label="Request ID" className="col-span-2 sm:col-span-3 xl:col-span-2">
            <span className="inline-flex max-w-full items-center gap-2">
              <span className="truncate font-mono text-xs">{r.id ?? "—"}</span>
              {r.id && <CopyButton value={r.id} title="Copy request ID" />}
            </span>
          </Field>
        </dl>
      </header>

      {r.id && <Deliveries publicId={publicId} requestId={r.id} canRetry={owner} />}

      <Section
        id="body-title"
        title="Body"
        meta={
          <>
            {body.kind === "json" && <Tag>JSON</Tag>}
            {body.kind === "text" && <Tag>Text</Tag>}
            {body.kind === "base64" && <Tag tone="accent">Binary · base64</Tag>}
            <span className="tabular-nums">{formatBytes(r.body_size)}</span>
            {r.body_truncated && (
              <span data-testid="body-truncated" className="font-medium text-amber-700 dark:text-amber-400">
                Truncated preview
              </span>
            )}
          </>
        }
        actions={
          <>
            {body.kind !== "none" && <CopyButton value={body.text} label="Copy" title="Copy body" data-testid="copy-body" />}
            {rawHref && (
              <a href={rawHref} download rel="nofollow" data-testid="download-raw" className={buttonClasses("secondary", "xs")}>
                <DownloadIcon className="size-3.5" />
                Download raw body
              </a>
            )}
          </>
        }
      >
        {body.kind === "none" ? (
          <p data-testid="request-body" data-body-kind="none" className="px-4 py-6 text-sm text-zinc-600 dark:text-zinc-400">
            {r.body_truncated || (r.body_size ?? 0) > 0
              ? "The body is not shown in the preview. Download the raw body to see it."
              : "This request has no body."}
          </p>
        ) : (
          <div className="space-y-3 px-4 py-3">
            {r.body_truncated && (
              <CutNotice shown={PREVIEW_BYTES} total={r.body_size} download={rawHref ? { href: rawHref } : undefined} name={`${r.id ?? "body"}.bin`} />
            )}
            {image && rawHref && (
              <ImagePreview key={r.id} contentType={r.content_type!} base64={body.kind === "base64" && !r.body_truncated ? body.text : null} raw={loadRaw} />
            )}
            {body.kind === "base64" ? (
              <>
                <p className="text-xs text-violet-800 dark:text-violet-300">
                  Binary content, shown as hex and base64. Download the raw body for the original bytes.
                </p>
                <BinaryView base64={body.text} testId="request-body" />
              </>
            ) : (
              <pre
                data-testid="request-body"
                data-body-kind={body.kind}
                tabIndex={0} // a scrollable region the keyboard can scroll (axe scrollable-region-focusable)
                className="max-h-[32rem] overflow-auto rounded-md bg-zinc-50/60 p-3 font-mono text-xs leading-relaxed whitespace-pre-wrap text-zinc-800 [overflow-wrap:anywhere] dark:bg-zinc-950/40 dark:text-zinc-200"
              >
                {body.kind === "json" ? <JsonTree key={r.id} doc={r.body} size={body.text.length} /> : body.text}
              </pre>
            )}
          </div>
        )}
      </Section>

      {formRows.length > 0 && (
        <Section id="form-title" title="Form fields" meta={<span>{formRows.length}</span>}>
          <KeyValueTable rows={formRows} emptyText="No form fields." data-testid="form-table" nameLabel="Field" />
        </Section>
      )}

      <Section
        id="headers-title"
        title="Headers"
        meta={<span className="tabular-nums">{headers.length}</span>}
        actions={
          headers.length > 0 && (
            <CopyButton value={() => headers.map(([k, v]) => `${k}: ${v}`).join("\n")} label="Copy" title="Copy headers" data-testid="copy-headers" />
          )
        }
      >
        <KeyValueTable rows={headers} emptyText="No headers." data-testid="headers-table" nameLabel="Header" />
      </Section>

      <Section id="query-title" title="Query parameters" meta={<span className="tabular-nums">{query.length}</span>}>
        <KeyValueTable rows={query} emptyText="No query string." data-testid="query-table" nameLabel="Parameter" />
      </Section>
    </article>
  );
}
