import type { Metadata } from "next";
import { headers } from "next/headers";
import { notFound } from "next/navigation";
import { cache } from "react";
import { Inspector } from "@/components/console/inspect/Inspector";
import { consoleSources } from "@/components/console/api";
import type { TSourcePreview } from "@/lib/console/schemas";
import { getSourcePreview } from "@/lib/console/preview";
import { getWorkspace, type Workspace } from "@/lib/console/workspace";
import { findSourceType } from "@/lib/gateway/sources/types";

export const dynamic = "force-dynamic";

type Params = { params: Promise<{ id: string }> };

function isNotFound(err: unknown): boolean {
  return typeof err === "object" && err !== null && (err as { status?: unknown }).status === 404;
}

/** The source preview, or the 404 page for an id that is not a test URL: unknown, or a gateway team's source (docs/console-api.md "Source preview"). */
const loadPreview = cache(async (id: string): Promise<TSourcePreview & { team_id: string }> => {
  try {
    return await getSourcePreview(id);
  } catch (err) {
    if (isNotFound(err)) notFound();
    throw err;
  }
});

async function loadWorkspace(): Promise<Workspace | null> {
  try {
    return await getWorkspace({ cookieHeader: (await headers()).get("cookie") });
  } catch (err) {
    console.error("[console ui] could not load the workspace:", err);
    return null;
  }
}

export async function generateMetadata({ params }: Params): Promise<Metadata> {
  const { id } = await params;
  const preview = await loadPreview(id);
  return {
    title: preview.name,
    // The id in the path is the only access control: keep it out of indexes and Referer headers.
    robots: { index: false, follow: false },
    referrer: "no-referrer",
  };
}

export default async function InspectPage({ params }: Params) {
  const { id } = await params;
  const [{ team_id: teamId, ...preview }, workspace] = await Promise.all([loadPreview(id), loadWorkspace()]);

  // The CLI key belongs to the workspace: only its owner sees the hint.
  const owner = !!workspace && (workspace.team_id === teamId || workspace.sources.some((s) => s.id === preview.id));
  const sources = consoleSources(workspace?.sources ?? []);

  return (
    <Inspector
      key={id}
      publicId={id}
      initial={preview}
      // eslint-disable-next-line react-hooks/purity -- a server component renders once per request: this is when the preview was read
      initialAt={Date.now()}
      typeLabel={findSourceType(preview.type)?.label ?? preview.type}
      cmdHint={owner && workspace ? workspace.cmd_hint : null}
      sources={sources}
    />
  );
}
