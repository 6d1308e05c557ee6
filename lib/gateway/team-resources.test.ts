/**
 * The create of a named team resource outside transactions (docs/architecture.md "Data access"): one
 * hand-written `INSERT … ON CONFLICT (team_id, name) DO NOTHING RETURNING`, whose row must be exactly what
 * Prisma Client reads back for it (the model's field names and types, JSON config as JSON, both times
 * set), and null for a name taken in the team. Runs on the test database (`npm test` sets DATABASE_URL).
 */
import { expect, it } from "vitest";
import { getPool } from "@/lib/db/pool";
import { getPrisma } from "@/lib/db/prisma";
import { DESTINATIONS } from "@/lib/gateway/destinations/destination-store";
import { SOURCES } from "@/lib/gateway/sources/source-store";
import { createTeamModel } from "@/lib/gateway/team-resources";
import { createId } from "@/lib/ids";
import { createTeam } from "@/lib/teams/bootstrap";

it("createTeamModel: one statement; the row is Prisma's read of it; a taken name is null, in that team only", async () => {
  const { teamId } = await createTeam("team-resources test");
  const source = {
    id: createId("source"),
    teamId,
    name: "orders",
    description: null,
    type: "WEBHOOK",
    config: { allowed_http_methods: ["POST", "PUT"], custom_response: { content_type: "json", body: '{"ok":true}' } },
    authEncrypted: null,
  };
  const pool = getPool();
  const query = pool.query.bind(pool);
  const statements: string[] = [];
  pool.query = ((...args: Parameters<typeof query>) => {
    statements.push(String((args[0] as { text?: string }).text ?? args[0]));
    return query(...args);
  }) as typeof pool.query;
  const row = await createTeamModel(SOURCES, source).finally(() => (pool.query = query));
  expect(statements).toHaveLength(1);
  expect(statements[0]).toMatch(/^INSERT INTO sources AS s .* ON CONFLICT \(team_id, name\) DO NOTHING RETURNING /);
  expect(row).toEqual(await getPrisma().source.findUniqueOrThrow({ where: { id: source.id } }));
  expect(row).toMatchObject({ ...source, disabledAt: null });
  expect(row!.createdAt).toBeInstanceOf(Date);
  expect(row!.updatedAt).toEqual(row!.createdAt);

  expect(await createTeamModel(SOURCES, { ...source, id: createId("source") })).toBeNull();
  const other = await createTeam("team-resources test, another team");
  expect(await createTeamModel(SOURCES, { ...source, id: createId("source"), teamId: other.teamId })).toMatchObject({ name: "orders" });

  const destination = {
    id: createId("destination"),
    teamId,
    name: "orders",
    description: "d",
    type: "HTTP",
    config: { url: "https://x.test" },
    authEncrypted: "enc",
  };
  const d = await createTeamModel(DESTINATIONS, destination);
  expect(d).toEqual(await getPrisma().destination.findUniqueOrThrow({ where: { id: destination.id } }));
  expect(d).toMatchObject(destination);
});
