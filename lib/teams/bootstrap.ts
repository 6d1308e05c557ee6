import { getConfig } from "@/lib/config";
import { encryptSecret } from "@/lib/crypto/secrets";
import { withAdvisoryLock } from "@/lib/db/transaction";
import { getPrisma } from "@/lib/db/prisma";
import { createApiKey, hashApiKey } from "@/lib/teams/api-keys";
import { newSigningSecret } from "@/lib/teams/signing-secret";
import { hashCliKey, newCliKey } from "@/lib/teams/cli-key";
import { createId } from "@/lib/ids";

/** Creates a TEAM-mode team with its cli_key (stored hashed) and signing secret; returns its id, the secret and the cli_key. */
export async function createTeam(name: string): Promise<{ teamId: string; signingSecret: string; cliKey: string }> {
  const teamId = createId("team");
  const signingSecret = newSigningSecret();
  const cliKey = newCliKey();
  await getPrisma().team.create({
    data: { id: teamId, name, mode: "TEAM", cliKeyHash: hashCliKey(cliKey), signingSecretEncrypted: encryptSecret(signingSecret) },
    select: { id: true },
  });
  return { teamId, signingSecret, cliKey };
}

/**
 * Makes sure an operator can use the gateway API without reading the database: on a first start with
 * no team, creates one with an API key and prints key and signing secret once (through `log`); with
 * GATEWAY_API_KEY set, makes sure that key exists (on the oldest team). Serialised by an advisory lock.
 */
// Stays SQL on one pg client: the advisory lock belongs to that client's open transaction.
export async function ensureGatewayTeam(log: (message: string) => void): Promise<void> {
  await withAdvisoryLock(727274002, async (client) => {
    const { rows } = await client.query<{ id: string }>("SELECT id FROM teams WHERE mode = 'TEAM' ORDER BY created_at LIMIT 1");
    let teamId = rows[0]?.id;
    const pinned = getConfig().gatewayApiKey;
    if (!teamId) {
      const team = await createTeam("Default team");
      teamId = team.teamId;
      log("created the gateway team. Keep these; they are not shown again:");
      if (!pinned) {
        const { key } = await createApiKey(teamId, "default");
        log(`  API key:        ${key}`);
      }
      log(`  signing secret: ${team.signingSecret}`);
      log(`  CLI key:        ${team.cliKey}  (hookyard listen … --cli-key; stored hashed: \`npm run keys -- cli-key\` replaces it with a new one)`);
      log("  (manage keys and the secret with `npm run keys`, docs/gateway-api.md)");
    }
    if (pinned) {
      const { rowCount } = await client.query("SELECT 1 FROM api_keys WHERE key_hash = $1", [hashApiKey(pinned)]);
      if (!rowCount) {
        await createApiKey(teamId, "GATEWAY_API_KEY", pinned);
        log("GATEWAY_API_KEY registered as an API key of the gateway team");
      }
    }
  });
}
