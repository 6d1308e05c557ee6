/**
 * `npm run keys -- <command>`: gateway API keys and the signing secret, without touching the database.
 *   list [--team <id>]                   keys of every team, or of one (prefixes only)
 *   create [name] [--team <id>]          a new key for the gateway team, or for team <id> (printed once; stored hashed)
 *   revoke <id | key | prefix>           revoke one key
 *   rotate-secret [hours] [--team <id>]  a new signing secret; the old one still signs (x-gateway-signature-2) for `hours` (default 24)
 *   cli-key [--team <id>]                a new cli_key for the gateway team (printed once; the previous one stops working),
 *                                        for `hookyard listen` with the team's sources: keys are stored hashed (docs/cli.md)
 *   outbound list | create [name] | revoke <id|prefix>   admin keys of the outbound API (docs/outbound.md)
 * Without --team, the gateway team (the oldest; created on the first use). Teams: `npm run teams` (docs/operations.md "Teams and users").
 * Uses DATABASE_URL, or starts the embedded PostgreSQL when the server is not running.
 */
import { runAdminCommand } from "./admin-command";
import { keysCommand, keysCommandLine } from "./keys-command";

const line = keysCommandLine(process.argv.slice(2));
await runAdminCommand(() => keysCommand(line));
