/**
 * `npm run keys -- <command>`: gateway API keys and the signing secret, without touching the database.
 *   list                         keys of every team (prefixes only)
 *   create [name]                a new key for the gateway team (printed once)
 *   revoke <id | key | prefix>   revoke one key
 *   rotate-secret [hours]        a new signing secret; the old one still signs (x-gateway-signature-2) for `hours` (default 24)
 *   cli-key                      a new cli_key for the gateway team (printed once; the previous one stops working),
 *                                for `hookyard listen` with the team's sources: keys are stored hashed (docs/cli.md)
 *   outbound list | create [name] | revoke <id|prefix>   admin keys of the outbound API (docs/outbound.md)
 * Uses DATABASE_URL, or starts the embedded PostgreSQL when the server is not running.
 */
import { closePool } from "@/lib/db/pool";
import { prepareDatabase } from "@/lib/db/prepare";
import { withDatabase } from "@/lib/db/with-database";
import { StartFailure } from "@/lib/processes";
import { failStart } from "@/lib/supervisor";
import { createApiKey, listApiKeys, revokeApiKey } from "@/lib/teams/api-keys";
import { ensureGatewayTeam } from "@/lib/teams/bootstrap";
import { rotateCliKey } from "@/lib/teams/cli-key";
import { rotateSigningSecret } from "@/lib/teams/signing-secret";
import { getPool } from "@/lib/db/pool";
import { createOutboundKey, listOutboundKeys, revokeOutboundKey } from "@/lib/outbound/auth";

const [command, arg, arg2] = process.argv.slice(2);

/** `npm run keys -- outbound …`: the outbound API's admin keys. Returns the exit code. */
async function outboundKeys(sub: string | undefined, value: string | undefined): Promise<number> {
  if (sub === "list") {
    const keys = await listOutboundKeys();
    if (!keys.length) console.log("no outbound keys");
    for (const k of keys)
      console.log(`${k.id}  ${k.prefix}…  ${k.name}  created ${k.created_at.toISOString()}${k.revoked_at ? `  REVOKED ${k.revoked_at.toISOString()}` : ""}`);
    return 0;
  }
  if (sub === "create") {
    const { id, key } = await createOutboundKey(value ?? "key");
    console.log(`created ${id}; the outbound admin key is shown once:\n${key}`);
    return 0;
  }
  if (sub === "revoke" && value) {
    const ok = await revokeOutboundKey(value);
    console.log(ok ? `revoked ${value}` : `no single live outbound key matches "${value}"`);
    return ok ? 0 : 1;
  }
  console.error("usage: npm run keys -- outbound list | create [name] | revoke <id|prefix>");
  return 2;
}

async function gatewayTeamId(): Promise<string> {
  await ensureGatewayTeam((m) => console.log(m));
  const { rows } = await getPool().query<{ id: string }>("SELECT id FROM teams WHERE mode = 'TEAM' ORDER BY created_at LIMIT 1");
  return rows[0].id;
}

const code = await withDatabase(async (url) => {
  process.env.DATABASE_URL = url;
  // As a start does: migrations unless MIGRATE_ON_START=false, the schema and SECRET_KEY checks (docs/operations.md).
  await prepareDatabase(url).catch((err) => failStart(err instanceof StartFailure ? err.message : String(err), 1));
  try {
    switch (command) {
      case "outbound":
        return await outboundKeys(arg, arg2);
      case "list": {
        const keys = await listApiKeys();
        if (!keys.length) console.log("no API keys");
        for (const k of keys) {
          console.log(
            `${k.id}  ${k.prefix}…  ${k.name}  team ${k.teamId}  created ${k.createdAt.toISOString()}${k.revokedAt ? `  REVOKED ${k.revokedAt.toISOString()}` : ""}`,
          );
        }
        return 0;
      }
      case "create": {
        const { key, record } = await createApiKey(await gatewayTeamId(), arg ?? "key");
        console.log(`created ${record.id} (${record.name}); the key is shown once:\n${key}`);
        return 0;
      }
      case "revoke": {
        if (!arg) break;
        const revoked = await revokeApiKey(arg);
        console.log(revoked ? `revoked ${revoked.id} (${revoked.prefix}…)` : `no single live key matches "${arg}"`);
        return revoked ? 0 : 1;
      }
      case "cli-key": {
        const key = await rotateCliKey(await gatewayTeamId());
        console.error("new CLI key of the gateway team (shown once; the previous key no longer works, and CLIs using it must restart with this one):");
        console.log(key);
        return 0;
      }
      case "rotate-secret": {
        const hours = arg === undefined ? 24 : Number(arg);
        if (!Number.isFinite(hours) || hours < 0) break;
        const { secret, previousExpiresAt } = await rotateSigningSecret(await gatewayTeamId(), hours * 3_600_000);
        console.log(`new signing secret (shown once): ${secret}`);
        console.log(
          previousExpiresAt
            ? `the previous secret keeps signing as x-gateway-signature-2 until ${previousExpiresAt.toISOString()}`
            : "the previous secret is no longer used",
        );
        return 0;
      }
    }
    console.error("usage: npm run keys -- list | create [name] | revoke <id|key|prefix> | rotate-secret [hours] | cli-key | outbound list|create|revoke");
    return 2;
  } finally {
    await closePool();
  }
});
process.exit(code);
