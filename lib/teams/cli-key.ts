/**
 * A workspace's `cli_key` (docs/cli.md "The cli_key"): the credential of `hookyard listen` on `/cli/…`,
 * never an API credential. Only its SHA-256 is stored (`teams.cli_key_hash`), so the key is shown when it
 * is made and cannot be read back: a gateway team's key is printed by the first start and replaced by
 * `npm run keys -- cli-key`; a console guest workspace's key is derived from its session token, so the
 * holder of the session cookie (and only they) can be shown it again.
 */
import { createHash, createHmac } from "node:crypto";
import type { PoolClient } from "pg";
import { getPool } from "@/lib/db/pool";
import { getPrisma } from "@/lib/db/prisma";
import { createToken } from "@/lib/ids";

/** A new random cli_key: `cli_` and 32 base64url characters (192 bits). */
export const newCliKey = (): string => `cli_${createToken(24)}`;

/** What `teams.cli_key_hash` stores for `key`: its SHA-256, hex (the migration computes the same in SQL). */
export const hashCliKey = (key: string): string => createHash("sha256").update(key, "utf8").digest("hex");

/**
 * The cli_key of a console guest workspace, derived from its session token (the cookie value): `cli_` and
 * the first 32 base64url characters of HMAC-SHA256(token, a fixed label). The same token always gives the
 * same key; the key reveals nothing of the token.
 */
export const cliKeyOfSessionToken = (token: string): string =>
  `cli_${createHmac("sha256", token).update("hookyard console cli_key v1").digest("base64url").slice(0, 32)}`;

/** The team whose cli_key is `key`, or null (absent, malformed or unknown key). */
export async function teamOfCliKey(key: string | null | undefined): Promise<string | null> {
  if (!key || key.length > 200) return null;
  const team = await getPrisma().team.findUnique({ where: { cliKeyHash: hashCliKey(key) }, select: { id: true } });
  return team?.id ?? null;
}

/**
 * Makes `key` the team's cli_key when it is not already (a guest workspace created before keys were
 * stored hashed gets its derived key at its owner's next visit; the old key stops working). `client`: run
 * inside a caller's transaction. Resolves whether the stored key changed.
 */
// Stays SQL: it runs inside the console's pg transaction (lib/console/sessions.ts).
export async function ensureCliKey(teamId: string, key: string, client: Pick<PoolClient, "query"> = getPool()): Promise<boolean> {
  const hash = hashCliKey(key);
  const { rowCount } = await client.query("UPDATE teams SET cli_key_hash = $2, updated_at = now() WHERE id = $1 AND cli_key_hash <> $2", [teamId, hash]);
  return Boolean(rowCount);
}

/** Replaces the team's cli_key with a new random one and returns it (shown once; the old key stops working). Throws for an unknown team. */
export async function rotateCliKey(teamId: string): Promise<string> {
  const key = newCliKey();
  const { count } = await getPrisma().team.updateMany({ where: { id: teamId }, data: { cliKeyHash: hashCliKey(key), updatedAt: new Date() } });
  if (!count) throw new Error(`no team ${teamId}`);
  return key;
}
