/**
 * Listing replays from the archive (docs/outbound.md "Replay from the archive", `GET /archive-replays`)
 * against the server `npm test` starts, which has no archive: starting a replay there is a 422 saying so,
 * and the list is checked over replays stored as the create stores them (rows of `outbound_redrives` whose
 * query kind is "archive_replay"; e2e/archive.test.ts runs real ones on a server with an archive). Newest
 * first, keyset-paged, filtered by tenant and destination; a tenant JWT sees only the replays it started;
 * redrives never appear, replays never appear among redrives; a bad cursor or limit is a 400 body.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, expect, it } from "vitest";
import { closePool, getPool } from "@/lib/db/pool";
import { createId } from "@/lib/ids";
import { createOutboundKey } from "@/lib/outbound/auth";
import { outboundCall } from "./support/outbound";

const run = randomBytes(4).toString("hex");
const tA = `arl-a-${run}`;
const tB = `arl-b-${run}`;
let admin = "";
let jwtA = "";
let jwtB = "";
let dA = "";
let dB = "";
/** Ids of the stored replays, oldest first: [a by tenant A, b by the operator to A, c by tenant B]. */
const ids: string[] = [];
let redriveId = "";

/** A finished replay row as POST /archive-replays stores it (no job: it never runs here), created `secondsAgo` ago by `byTenant` (null: the operator). */
async function storeReplay(tenant: string, destination: string, byTenant: string | null, secondsAgo: number): Promise<string> {
  const id = createId("outboundRedrive");
  const query = { kind: "archive_replay", time: { gte: "2026-01-01T00:00:00Z", lte: "2026-01-01T23:59:59Z" }, destination_id: destination, tenant_id: tenant };
  await getPool().query(
    `INSERT INTO outbound_redrives (id, tenant_id, query, upper_bound, estimated_count, estimated_batch, in_progress, completed_at, created_at)
     VALUES ($1, $2, $3, '2026-01-01', 4, 1, false, now(), now() - make_interval(secs => $4))`,
    [id, byTenant, JSON.stringify(query), secondsAgo],
  );
  return id;
}

beforeAll(async () => {
  admin = (await createOutboundKey(`archive-replays-${run}`)).key;
  for (const t of [tA, tB]) expect((await outboundCall(admin, "PUT", `/tenants/${t}`)).status).toBeLessThan(300);
  const dest = async (t: string) =>
    (await outboundCall(admin, "POST", `/tenants/${t}/destinations`, { type: "webhook", topics: "*", config: { url: "https://example.com/hook" } })).json
      .id as string;
  dA = await dest(tA);
  dB = await dest(tB);
  jwtA = (await outboundCall(admin, "GET", `/tenants/${tA}/token`)).json.token;
  jwtB = (await outboundCall(admin, "GET", `/tenants/${tB}/token`)).json.token;
  ids.push(await storeReplay(tA, dA, tA, 30), await storeReplay(tA, dA, null, 20), await storeReplay(tB, dB, tB, 10));
  redriveId = createId("outboundRedrive");
  await getPool().query(
    `INSERT INTO outbound_redrives (id, tenant_id, query, upper_bound, estimated_count, estimated_batch, in_progress, completed_at)
     VALUES ($1, NULL, $2, '', 0, 0, false, now())`,
    [redriveId, JSON.stringify({ tenant_id: tA })],
  );
});
afterAll(async () => {
  await getPool().query("DELETE FROM outbound_redrives WHERE id = ANY($1)", [[...ids, redriveId]]);
  await closePool();
});

it("without an archive, planning or starting a replay is a 422 that says so", async () => {
  const body = { time: { gte: "2026-01-01T00:00:00Z", lte: "2026-01-01T23:59:59Z" }, destination_id: dA };
  for (const path of ["/archive-replays/plan", "/archive-replays"]) {
    const r = await outboundCall(admin, "POST", path, body);
    expect(r.status).toBe(422);
    expect(r.text).toMatch(/needs an archive: the server has neither ARCHIVE_DIR nor ARCHIVE_S3_BUCKET set/);
  }
});

it("lists replays newest first with their query, filtered by tenant and destination, paged by cursor; never redrives", async () => {
  const mine = await outboundCall(admin, "GET", `/archive-replays?tenant_id=${tA}`);
  expect(mine.status).toBe(200);
  expect(mine.json.models.map((m: { id: string }) => m.id)).toEqual([ids[1], ids[0]]);
  expect(mine.json.next).toBeNull();
  expect(mine.json.models[0]).toMatchObject({ id: ids[1], tenant_id: null, query: { destination_id: dA, tenant_id: tA }, estimated_count: 4 });
  expect(mine.json.models[0].query.kind).toBeUndefined();
  expect((await outboundCall(admin, "GET", `/archive-replays?destination_id=${dB}`)).json.models.map((m: { id: string }) => m.id)).toEqual([ids[2]]);

  const first = await outboundCall(admin, "GET", `/archive-replays?tenant_id=${tA}&limit=1`);
  expect(first.json.models.map((m: { id: string }) => m.id)).toEqual([ids[1]]);
  expect(typeof first.json.next).toBe("string");
  const second = await outboundCall(admin, "GET", `/archive-replays?tenant_id=${tA}&limit=1&next=${encodeURIComponent(first.json.next)}`);
  expect(second.json).toEqual({ models: [expect.objectContaining({ id: ids[0] })], next: null });

  const all = (await outboundCall(admin, "GET", "/archive-replays?limit=100")).json.models.map((m: { id: string }) => m.id);
  expect(all).toEqual(expect.arrayContaining(ids));
  expect(all).not.toContain(redriveId);
  const redrives = (await outboundCall(admin, "GET", "/redrives?limit=100")).json.models.map((m: { id: string }) => m.id);
  expect(redrives).toContain(redriveId);
  expect(redrives).not.toContain(ids[0]);
});

it("a tenant JWT sees only the replays it started, whatever it filters on", async () => {
  expect((await outboundCall(jwtA, "GET", "/archive-replays")).json).toEqual({ models: [expect.objectContaining({ id: ids[0] })], next: null });
  expect((await outboundCall(jwtB, "GET", "/archive-replays")).json.models.map((m: { id: string }) => m.id)).toEqual([ids[2]]);
  expect((await outboundCall(jwtB, "GET", `/archive-replays?tenant_id=${tA}`)).json).toEqual({ models: [], next: null });
  expect((await outboundCall(jwtB, "GET", `/archive-replays/${ids[0]}`)).status).toBe(404);
});

it("a bad cursor or limit is a 400 with the outbound error body", async () => {
  expect(await outboundCall(admin, "GET", "/archive-replays?next=not-a-cursor").then((r) => [r.status, r.json])).toEqual([
    400,
    { status: 400, message: "invalid cursor" },
  ]);
  for (const limit of ["0", "101", "x"]) {
    const r = await outboundCall(admin, "GET", `/archive-replays?limit=${limit}`);
    expect([r.status, r.json]).toEqual([400, { status: 400, message: "limit must be an integer from 1 to 100" }]);
  }
});
