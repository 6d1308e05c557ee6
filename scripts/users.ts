/**
 * `npm run users -- <command>`: operators of the signed-in dashboard (docs/dashboard.md#signing-in).
 *   list                                   every user (email, team, whether a password is set)
 *   create <email> [password]              a user of the gateway team; without a password, prints a one-time sign-in link
 *   reset-password <id|email> [password]   a new password; without one, prints a one-time sign-in link that sets it;
 *                                          either way every session of the user ends at once
 *   delete <id|email>                      removes the user
 * Passwords may also come from the DASHBOARD_PASSWORD environment variable (kept out of the shell history).
 * Uses DATABASE_URL, or starts the embedded PostgreSQL when the server is not running.
 */
import { closePool } from "@/lib/db/pool";
import { prepareDatabase } from "@/lib/db/prepare";
import { withDatabase } from "@/lib/db/with-database";
import { StartFailure } from "@/lib/processes";
import { failStart } from "@/lib/supervisor";
import { gatewayTeamId, signInLink } from "@/lib/dashboard/bootstrap";
import { createSignInToken, createUser, deleteUser, endUserSessions, findUser, listUsers, resetPassword } from "@/lib/dashboard/users";
import { AppError } from "@/lib/http/errors";
import { ensureGatewayTeam } from "@/lib/teams/bootstrap";

const [command, arg, arg2] = process.argv.slice(2);
const password = arg2 ?? process.env.DASHBOARD_PASSWORD ?? null;
const USAGE = "usage: npm run users -- list | create <email> [password] | reset-password <id|email> [password] | delete <id|email>";

const code = await withDatabase(async (url) => {
  process.env.DATABASE_URL = url;
  // As a start does: migrations unless MIGRATE_ON_START=false, the schema and SECRET_KEY checks (docs/operations.md).
  await prepareDatabase(url).catch((err) => failStart(err instanceof StartFailure ? err.message : String(err), 1));
  try {
    switch (command) {
      case "list": {
        const users = await listUsers();
        if (!users.length) console.log("no dashboard users");
        for (const u of users)
          console.log(`${u.id}  ${u.email}  team ${u.team_id}  created ${u.created_at.toISOString()}${u.has_password ? "" : "  (no password yet)"}`);
        return 0;
      }
      case "create": {
        if (!arg) break;
        await ensureGatewayTeam((m) => console.log(m));
        const user = await createUser(arg, password, (await gatewayTeamId())!);
        console.log(`created ${user.id} (${user.email})`);
        if (!password) console.log(`one-time sign-in link (24 hours; it sets the password):\n${signInLink(await createSignInToken(user.id))}`);
        return 0;
      }
      case "reset-password": {
        if (!arg) break;
        if (password) {
          const user = await resetPassword(arg, password);
          console.log(`password of ${user.email} changed; its sessions ended`);
        } else {
          const user = await findUser(arg);
          if (!user) throw new AppError("NOT_FOUND", `no user "${arg}"`);
          await endUserSessions(user.id);
          console.log(`sessions of ${user.email} ended`);
          console.log(`one-time sign-in link for ${user.email} (24 hours; it sets a new password):\n${signInLink(await createSignInToken(user.id))}`);
        }
        return 0;
      }
      case "delete": {
        if (!arg) break;
        const ok = await deleteUser(arg);
        console.log(ok ? `deleted ${arg}` : `no user "${arg}"`);
        return ok ? 0 : 1;
      }
    }
    console.error(USAGE);
    return 2;
  } catch (err) {
    if (err instanceof AppError) {
      console.error(err.message);
      return 1;
    }
    throw err;
  } finally {
    await closePool();
  }
});
process.exit(code);
