import { type ConsoleSession, createGuestWorkspace, sessionCliKey } from "@/lib/console/sessions";
import type { TCreateTestUrlRequest, TTestUrl } from "@/lib/console/schemas";
import { cmdHintFor, ingestUrlFor, inspectUrlFor } from "@/lib/urls";
import { createSourceWithUniqueName } from "@/lib/gateway/sources/create-source-with-unique-name";
import { findSourceType, type HttpMethod } from "@/lib/gateway/sources/types";
import { AppError } from "@/lib/http/errors";

/** A console WEBHOOK source also accepts GET, so a browser or `curl` with no flags is captured normally. */
const CONSOLE_WEBHOOK_METHODS: HttpMethod[] = ["GET", "POST", "PUT", "PATCH", "DELETE"];

/**
 * Creates a test URL (docs/console-api.md#post-): a source in the caller's guest workspace, or
 * in a new guest workspace when `session` is null (then `newSession` carries the cookie token to set).
 * Throws AppError VALIDATION when `type` is not supported or requires authentication.
 */
export async function createTestUrl(
  input: TCreateTestUrlRequest,
  session: ConsoleSession | null,
): Promise<{ testUrl: TTestUrl; sourceId: string; newSession?: { token: string; expiresAt: Date } }> {
  const type = input.type ?? "WEBHOOK";
  const definition = findSourceType(type);
  // The console follows the newest API version: a retired combined type is not offered.
  if (!definition || definition.acceptedUntil)
    throw new AppError("VALIDATION", "Unsupported type", { messages: [`type: "${type}" is not a supported source type`] });
  if (definition.requiresAuth) {
    throw new AppError("VALIDATION", "Type requires authentication", {
      messages: [`type: "${type}" requires authentication and cannot be used for a test URL`],
    });
  }

  let teamId: string;
  let cliKey: string;
  let newSession: { token: string; expiresAt: Date } | undefined;
  if (session) {
    teamId = session.teamId;
    cliKey = await sessionCliKey(session);
  } else {
    const guest = await createGuestWorkspace();
    teamId = guest.session.teamId;
    cliKey = guest.cliKey;
    newSession = { token: guest.token, expiresAt: guest.session.expiresAt };
  }

  const source = await createSourceWithUniqueName({
    teamId,
    name: input.name ?? "Source",
    type,
    config: {
      allowed_http_methods: type === "WEBHOOK" ? CONSOLE_WEBHOOK_METHODS : definition.defaultAllowedMethods,
      custom_response: null,
    },
  });
  return {
    sourceId: source.id,
    newSession,
    testUrl: {
      ingest_url: ingestUrlFor(source.id),
      inspect_url: inspectUrlFor(source.id),
      type: source.type,
      name: source.name,
      cli_key: cliKey,
      cmd_hint: cmdHintFor(cliKey),
    },
  };
}
