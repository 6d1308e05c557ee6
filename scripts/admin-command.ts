/**
 * The frame of the operator commands (`npm run keys`, `npm run users`, `npm run teams`; docs/operations.md
 * "Teams and users"): a database (DATABASE_URL, or the embedded PostgreSQL when the server is not running),
 * prepared as a start prepares it (migrations unless MIGRATE_ON_START=false, the schema and SECRET_KEY checks;
 * a refusal is its one sentence and exit 1), then `run`. An AppError (a refusal, an unknown id, bad input) is printed as its one sentence and
 * exits 1; `run` resolves the exit code otherwise. Never returns.
 */
import { parseArgs } from "node:util";
import { closePool } from "@/lib/db/pool";
import { prepareDatabase } from "@/lib/db/prepare";
import { withDatabase } from "@/lib/db/with-database";
import { AppError } from "@/lib/http/errors";
import { StartFailure } from "@/lib/processes";
import { failStart } from "@/lib/supervisor";

export async function runAdminCommand(run: () => Promise<number>): Promise<never> {
  process.exit(await adminCommandStatus(run));
}

/**
 * {@link runAdminCommand} without the exit: resolves the exit code (an AppError printed as its one sentence
 * is 1). For tests that run a command in their own process (the pools are closed afterwards). A database
 * that cannot be prepared still ends the process (exit 1), as a start does.
 */
export async function adminCommandStatus(run: () => Promise<number>): Promise<number> {
  return withDatabase(async (url) => {
    process.env.DATABASE_URL = url;
    // As a start does (docs/operations.md "Migrations" and "One key").
    await prepareDatabase(url).catch((err) => failStart(err instanceof StartFailure ? err.message : String(err), 1));
    try {
      return await run();
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
}

/**
 * The command line after `npm run x --`: positionals (the command first) and the options
 * `--team <id>` and `--operator`. An unknown option or a missing value throws the usage error (exit 2).
 */
export function commandLine(argv: string[], usage: string): { positionals: string[]; team?: string; operator: boolean } {
  try {
    const { values, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      options: { team: { type: "string" }, operator: { type: "boolean", default: false } },
    });
    return { positionals, team: values.team, operator: values.operator ?? false };
  } catch (err) {
    console.error(`${(err as Error).message}\n${usage}`);
    process.exit(2);
  }
}
