/**
 * `npm run teams -- <command>`: gateway teams (docs/operations.md "Teams and users").
 *   list            every team: id, name, created, live API keys, dashboard users (the gateway team marked)
 *   create <name>   a new team; prints its id (then: `npm run keys -- create --team <id>`, `npm run users -- create --team <id> <email>`)
 *   delete <id>     deletes a team with its keys and users; refused for the gateway team and while it has sources or destinations
 * Uses DATABASE_URL, or starts the embedded PostgreSQL when the server is not running.
 */
import { createTeam } from "@/lib/teams/bootstrap";
import { deleteTeam, listTeams, teamName } from "@/lib/teams/teams";
import { commandLine, runAdminCommand } from "./admin-command";

const USAGE = "usage: npm run teams -- list | create <name> | delete <id>";
const { positionals } = commandLine(process.argv.slice(2), USAGE);
const [command, ...rest] = positionals;

await runAdminCommand(async () => {
  switch (command) {
    case "list": {
      const teams = await listTeams();
      if (!teams.length) console.log("no teams");
      for (const t of teams)
        console.log(
          `${t.id}  ${t.name}  created ${t.created_at.toISOString()}  ${t.api_keys} key(s)  ${t.users} user(s)${t.gateway ? "  (gateway team)" : ""}`,
        );
      return 0;
    }
    case "create": {
      if (!rest.length) break;
      const { teamId, signingSecret, cliKey } = await createTeam(teamName(rest.join(" ")));
      console.log(teamId);
      // The id alone on stdout (for scripts); what is shown once goes to stderr.
      console.error(`created team ${teamId}. Keep these; they are not shown again:`);
      console.error(`  signing secret: ${signingSecret}`);
      console.error(`  CLI key:        ${cliKey}`);
      console.error(`next: npm run keys -- create --team ${teamId}; npm run users -- create --team ${teamId} <email>`);
      return 0;
    }
    case "delete": {
      if (rest.length !== 1) break;
      const gone = await deleteTeam(rest[0]);
      console.log(`deleted team ${gone.id} (${gone.name}) with ${gone.api_keys} API key(s) and ${gone.users} dashboard user(s)`);
      return 0;
    }
  }
  console.error(USAGE);
  return 2;
});
