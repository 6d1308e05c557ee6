/**
 * The frame of the operator commands (`npm run keys`, `npm run users`, `npm run teams`; docs/operations.md
 * "Teams and users"): a database (DATABASE_URL, or the embedded PostgreSQL when the server is not running),
 * migrated, then `run`. An AppError (a refusal, an unknown id, bad input) is printed as its one sentence and
 * exits 1; `run` resolves the exit code otherwise. Never returns.
 */
import { parseArgs } from "node:util";
import { migrate } from "@/lib/db/migrate";
import { closePool } from "@/lib/db/pool";
import { withDatabase } from "@/lib/db/with-database";
import { AppError } from "@/lib/http/errors";

export async function runAdminCommand(run: () => Promise<number>): Promise<never> {
  const code = await withDatabase(async (url) => {
    process.env.DATABASE_URL = url;
    await migrate(url);
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
  process.exit(code);
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
