import { getPool } from "@/lib/db/pool";
import { createId } from "@/lib/ids";

type CreatedSource = { id: string; teamId: string; name: string; type: string; config: Record<string, unknown>; createdAt: Date };

const MAX_NAME = 155;
const MAX_ATTEMPTS = 20;

/** `base`, then `base-2`, `base-3`…, cut so the result stays within 155 characters. */
export function suffixedName(base: string, n: number): string {
  if (n <= 1) return base.slice(0, MAX_NAME);
  const suffix = `-${n}`;
  return base.slice(0, MAX_NAME - suffix.length) + suffix;
}

/**
 * Creates a source named `name` in `teamId`, or, when the name is taken in that team, the first free
 * `name-N` (console "Create request": "a suffix is added automatically"). Safe under concurrent creates:
 * the (team_id, name) unique index decides, and a lost race retries with the next free suffix instead
 * of failing. Throws only on database errors, or after 20 lost races in a row.
 */
export async function createSourceWithUniqueName(input: {
  teamId: string;
  name: string;
  type: string;
  config: Record<string, unknown>;
}): Promise<CreatedSource> {
  const pool = getPool();
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    // Highest suffix in use for this base name; the next one is free unless someone races us.
    const { rows: taken } = await pool.query<{ name: string }>("SELECT name FROM sources WHERE team_id = $1 AND (name = $2 OR name LIKE $3)", [
      input.teamId,
      input.name,
      `${input.name.slice(0, MAX_NAME - 2).replace(/[\\%_]/g, "\\$&")}-%`,
    ]);
    const names = new Set(taken.map((r) => r.name));
    let n = 1;
    while (names.has(suffixedName(input.name, n))) n++;
    const id = createId("source");
    const { rows } = await pool.query<{ created_at: Date }>(
      `INSERT INTO sources (id, team_id, name, type, config, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, now(), now())
       ON CONFLICT (team_id, name) DO NOTHING RETURNING created_at`,
      [id, input.teamId, suffixedName(input.name, n), input.type, JSON.stringify(input.config)],
    );
    if (rows[0]) {
      return { id, teamId: input.teamId, name: suffixedName(input.name, n), type: input.type, config: input.config, createdAt: rows[0].created_at };
    }
  }
  throw new Error(`could not find a free source name for "${input.name}" after ${MAX_ATTEMPTS} attempts`);
}
