/**
 * Renaming and deleting a test URL (docs/console-api.md "Renaming and deleting a test URL"). Both need the
 * session cookie of the workspace that created it (requireOwnedConsoleSource). Plain CRUD over Prisma.
 */
import { requireOwnedConsoleSource, testUrlNotFound } from "@/lib/console/console-source";
import type { ConsoleSession } from "@/lib/console/sessions";
import { bumpConfigGeneration } from "@/lib/db/config-generation";
import { getPrisma, isRecordNotFound, isUniqueViolation } from "@/lib/db/prisma";
import { AppError } from "@/lib/http/errors";

/**
 * Renames the test URL `publicId` (id without `src_`) to `name` (already trimmed, 1–155 characters).
 * Returns `{id, name}` (`id` with `src_`). Throws AppError NOT_FOUND (not a test URL), FORBIDDEN (not the
 * owner's session), CONFLICT (another test URL of the workspace has that name).
 */
export async function renameConsoleSource(publicId: string, name: string, session: ConsoleSession | null): Promise<{ id: string; name: string }> {
  const source = await requireOwnedConsoleSource(publicId, session);
  if (source.name === name) return { id: source.id, name };
  try {
    await getPrisma().source.update({ where: { id: source.id }, data: { name } });
  } catch (err) {
    if (isUniqueViolation(err)) {
      throw new AppError("CONFLICT", "Name already used", { messages: [`name: another test URL of this workspace is already named "${name}"`] });
    }
    if (isRecordNotFound(err)) throw testUrlNotFound(publicId); // deleted meanwhile
    throw err;
  }
  return { id: source.id, name };
}

/**
 * Deletes the test URL `publicId` with its captured requests, events and attempts (foreign keys cascade);
 * its ingest URL then answers 404 (from another server process, within the ingest cache's second). Throws AppError NOT_FOUND (not a test URL, or already deleted),
 * FORBIDDEN (not the owner's session).
 */
export async function deleteConsoleSource(publicId: string, session: ConsoleSession | null): Promise<void> {
  const source = await requireOwnedConsoleSource(publicId, session);
  await getPrisma().source.deleteMany({ where: { id: source.id } });
  // Ingestion caches sources for a second: drop this process's copy so its ingest URL answers 404 at once.
  bumpConfigGeneration();
}
