/**
 * The commands of `npm run keys` (scripts/keys.ts), in a module of their own so tests can run them in their
 * process (e2e/gateway-keys.test.ts); docs/gateway-api.md#getting-a-key.
 */
import { createApiKey, listApiKeys, revokeApiKey } from "@/lib/teams/api-keys";
import { ensureGatewayTeam } from "@/lib/teams/bootstrap";
import { rotateCliKey } from "@/lib/teams/cli-key";
import { rotateSigningSecret } from "@/lib/teams/signing-secret";
import { gatewayTeamId, requireTeam } from "@/lib/teams/teams";
import { createOutboundKey, listOutboundKeys, revokeOutboundKey } from "@/lib/outbound/auth";
import { commandLine } from "./admin-command";

export const KEYS_USAGE =
  "usage: npm run keys -- list [--team <id>] | create [name] [--team <id>] | revoke <id|key|prefix> | rotate-secret [hours] [--team <id>] | cli-key [--team <id>] | outbound list|create|revoke";

/** The command line of `npm run keys -- …` (argv after `--`); a bad option prints the usage and exits 2 ({@link commandLine}). */
export function keysCommandLine(argv: string[]): { positionals: string[]; team?: string } {
  return commandLine(argv, KEYS_USAGE);
}

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

/** Team `team` (checked: an unknown id is a one-sentence error), else the gateway team (created on a first use). */
async function targetTeam(team: string | undefined): Promise<string> {
  if (team !== undefined) return (await requireTeam(team)).id;
  await ensureGatewayTeam((m) => console.log(m));
  return (await gatewayTeamId())!;
}

/**
 * Runs one `npm run keys` command (`line`: {@link keysCommandLine}) on the database of this process (getPool),
 * printing to the console as the script does; resolves the exit code (0 done, 1 nothing matched, 2 usage).
 * Throws AppError for an unknown `--team` (printed as one sentence, exit 1, by the caller's frame).
 */
export async function keysCommand(line: { positionals: string[]; team?: string }): Promise<number> {
  const { team } = line;
  const [command, arg, arg2] = line.positionals;
  switch (command) {
    case "outbound":
      return await outboundKeys(arg, arg2);
    case "list": {
      const keys = await listApiKeys(team === undefined ? undefined : (await requireTeam(team)).id);
      if (!keys.length) console.log("no API keys");
      for (const k of keys) {
        console.log(
          `${k.id}  ${k.prefix}…  ${k.name}  team ${k.teamId}  created ${k.createdAt.toISOString()}${k.revokedAt ? `  REVOKED ${k.revokedAt.toISOString()}` : ""}`,
        );
      }
      return 0;
    }
    case "create": {
      const { key, record } = await createApiKey(await targetTeam(team), arg ?? "key");
      console.log(`created ${record.id} (${record.name}) for team ${record.teamId}; the key is shown once:\n${key}`);
      return 0;
    }
    case "revoke": {
      if (!arg) break;
      const revoked = await revokeApiKey(arg);
      if (!revoked) {
        console.error(`No single live key matches "${arg}" (see npm run keys -- list).`);
        return 1;
      }
      console.log(`revoked ${revoked.id} (${revoked.prefix}…)`);
      return 0;
    }
    case "cli-key": {
      const teamId = await targetTeam(team);
      const key = await rotateCliKey(teamId);
      console.error(`new CLI key of team ${teamId} (shown once; the previous key no longer works, and CLIs using it must restart with this one):`);
      console.log(key);
      return 0;
    }
    case "rotate-secret": {
      const hours = arg === undefined ? 24 : Number(arg);
      if (!Number.isFinite(hours) || hours < 0) break;
      const { secret, previousExpiresAt } = await rotateSigningSecret(await targetTeam(team), hours * 3_600_000);
      console.log(`new signing secret (shown once): ${secret}`);
      console.log(
        previousExpiresAt
          ? `the previous secret keeps signing as x-gateway-signature-2 until ${previousExpiresAt.toISOString()}`
          : "the previous secret is no longer used",
      );
      return 0;
    }
  }
  console.error(KEYS_USAGE);
  return 2;
}
