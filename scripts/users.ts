/**
 * `npm run users -- <command>`: users of the signed-in dashboard (docs/dashboard.md#signing-in,
 * docs/operations.md "Teams and users").
 *   list [--team <id>]                                 every user (email, team, operator, whether a password is set)
 *   create <email> [password]                          an operator of the gateway team (as before teams)
 *   create --team <id> [--operator] <email> [password] a user of team <id>, who sees that team only (an operator with --operator)
 *                                                      without a password, either prints a one-time sign-in link that sets it
 *   reset-password <id|email> [password]               a new password; without one, prints a one-time sign-in link that sets it;
 *                                                      either way every session of the user ends at once
 *   delete <id|email>                                  removes the user
 * Passwords may also come from the DASHBOARD_PASSWORD environment variable (kept out of the shell history).
 * Uses DATABASE_URL, or starts the embedded PostgreSQL when the server is not running.
 */
import { signInLink } from "@/lib/dashboard/bootstrap";
import { createSignInToken, createUser, deleteUser, endUserSessions, findUser, listUsers, resetPassword } from "@/lib/dashboard/users";
import { AppError } from "@/lib/http/errors";
import { ensureGatewayTeam } from "@/lib/teams/bootstrap";
import { gatewayTeamId, requireTeam } from "@/lib/teams/teams";
import { commandLine, runAdminCommand } from "./admin-command";

const USAGE =
  "usage: npm run users -- list [--team <id>] | create [--team <id> [--operator]] <email> [password] | reset-password <id|email> [password] | delete <id|email>";
const { positionals, team, operator } = commandLine(process.argv.slice(2), USAGE);
const [command, arg, arg2] = positionals;
const password = arg2 ?? process.env.DASHBOARD_PASSWORD ?? null;

await runAdminCommand(async () => {
  switch (command) {
    case "list": {
      const users = await listUsers(team === undefined ? undefined : (await requireTeam(team)).id);
      if (!users.length) console.log("no dashboard users");
      for (const u of users)
        console.log(
          `${u.id}  ${u.email}  team ${u.team_id}${u.operator ? "  operator" : ""}  created ${u.created_at.toISOString()}${u.has_password ? "" : "  (no password yet)"}`,
        );
      return 0;
    }
    case "create": {
      if (!arg) break;
      let teamId: string;
      if (team !== undefined) teamId = (await requireTeam(team)).id;
      else {
        await ensureGatewayTeam((m) => console.log(m));
        teamId = (await gatewayTeamId())!;
      }
      // Without --team, the user of before teams: an operator of the gateway team.
      const user = await createUser(arg, password, teamId, { operator: team === undefined || operator });
      console.log(`created ${user.id} (${user.email}) in team ${user.team_id}${user.operator ? " as an operator" : ""}`);
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
      if (!ok) console.error(`no user "${arg}"`);
      else console.log(`deleted ${arg}`);
      return ok ? 0 : 1;
    }
  }
  console.error(USAGE);
  return 2;
});
