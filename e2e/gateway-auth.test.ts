/**
 * API authentication, team isolation, error bodies and the per-key rate limit of the gateway API
 * (docs/gateway-api.md#authentication, #errors, #rate-limit).
 */
import { beforeAll, describe, expect, it } from "vitest";
import { createApiKey, revokeApiKey } from "@/lib/teams/api-keys";
import { db, newTestUrl } from "./support/client";
import { api, newTeam, type TestTeam } from "./support/gateway";

const V = "/2025-07-01";
let team: TestTeam;
let sourceId: string;
let revokedKey: string;
let teamCliKey: string;
let consoleCliKey: string;

beforeAll(async () => {
  team = await newTeam("auth");
  sourceId = (await api(team, "POST", `${V}/sources`, { name: "auth-target" })).json.id;
  const extra = await createApiKey(team.teamId, "to revoke");
  revokedKey = extra.key;
  expect((await api({ apiKey: revokedKey }, "GET", `${V}/sources/count`)).status).toBe(200);
  expect(await revokeApiKey(extra.record.id)).not.toBeNull();
  teamCliKey = team.cliKey!;
  consoleCliKey = (await newTestUrl()).cli_key;
});

const basic = (user: string, password = "") => `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`;

/** Endpoints of the matrix; each succeeds for the owner without changing anything that matters. */
const ENDPOINTS: [string, string, () => string, unknown?][] = [
  ["GET /sources", "GET", () => `${V}/sources`],
  ["GET /sources/count", "GET", () => `${V}/sources/count`],
  ["GET /sources/{id}", "GET", () => `${V}/sources/${sourceId}`],
  ["PUT /sources/{id}", "PUT", () => `${V}/sources/${sourceId}`, { description: "touched" }],
  ["PUT /sources/{id}/enable", "PUT", () => `${V}/sources/${sourceId}/enable`],
  ["PUT /2024-09-01/sources/{id}/unarchive", "PUT", () => `/2024-09-01/sources/${sourceId}/unarchive`],
  ["GET /sources/count (no version)", "GET", () => `/sources/count`],
];

describe("API authentication", () => {
  it.each(ENDPOINTS)("%s – Bearer key → 200", async (_label, method, path, body) => {
    const r = await api(team, method, path(), body);
    expect(r.status).toBe(200);
  });

  it.each(ENDPOINTS)("%s – Basic auth with the key as username and an empty password → 200", async (_label, method, path, body) => {
    const r = await api(null, method, path(), body, { authorization: basic(team.apiKey) });
    expect(r.status).toBe(200);
  });

  it("POST /sources – Bearer and Basic both create; the source belongs to the key's team", async () => {
    const bearer = await api(team, "POST", `${V}/sources`, { name: "by-bearer" });
    const viaBasic = await api(null, "POST", `${V}/sources`, { name: "by-basic" }, { authorization: basic(team.apiKey) });
    expect([bearer.status, viaBasic.status]).toEqual([200, 200]);
    expect(bearer.json.team_id).toBe(team.teamId);
    expect(viaBasic.json.team_id).toBe(team.teamId);
  });

  it("GET /sources – scheme names are case-insensitive (bearer, BASIC)", async () => {
    expect((await api(null, "GET", `${V}/sources/count`, undefined, { authorization: `bearer ${team.apiKey}` })).status).toBe(200);
    expect((await api(null, "GET", `${V}/sources/count`, undefined, { authorization: basic(team.apiKey).replace("Basic", "BASIC") })).status).toBe(200);
  });

  const refused: [string, () => Record<string, string>, string][] = [
    ["no Authorization header", () => ({}), "No API key was provided through Basic Auth or Bearer Token"],
    ["an empty Bearer", () => ({ authorization: "Bearer " }), "No API key was provided through Basic Auth or Bearer Token"],
    ["a wrong key", () => ({ authorization: "Bearer hky_wrongwrongwrongwrongwrongwrongwrongwrong" }), "The API key is invalid or revoked"],
    ["a wrong key through Basic", () => ({ authorization: basic("hky_wrongwrongwrongwrongwrongwrongwrongwrong") }), "The API key is invalid or revoked"],
    [
      "the key as the Basic password instead of the username",
      () => ({ authorization: basic("", team.apiKey) }),
      "No API key was provided through Basic Auth or Bearer Token",
    ],
    ["a revoked key", () => ({ authorization: `Bearer ${revokedKey}` }), "The API key is invalid or revoked"],
    ["a revoked key through Basic", () => ({ authorization: basic(revokedKey) }), "The API key is invalid or revoked"],
    ["a console cli_key as Bearer", () => ({ authorization: `Bearer ${consoleCliKey}` }), "The API key is invalid or revoked"],
    ["a console cli_key through Basic", () => ({ authorization: basic(consoleCliKey) }), "The API key is invalid or revoked"],
    ["the team's own cli_key as Bearer", () => ({ authorization: `Bearer ${teamCliKey}` }), "The API key is invalid or revoked"],
    ["the key under an unknown scheme", () => ({ authorization: `Token ${team.apiKey}` }), "No API key was provided through Basic Auth or Bearer Token"],
    ["the key with a trailing character", () => ({ authorization: `Bearer ${team.apiKey}x` }), "The API key is invalid or revoked"],
  ];

  for (const [label, method, path, body] of ENDPOINTS) {
    it.each(refused)(`${label} – %s → 401 UNAUTHORIZED error body`, async (_case, headers, message) => {
      const r = await api(null, method, path(), body, headers());
      expect(r.status).toBe(401);
      expect(r.json).toEqual({ handled: true, status: 401, message: "Unauthorized", code: "UNAUTHORIZED", data: { message } });
      expect(r.headers.get("content-type")).toContain("application/json");
    });
  }

  it("POST /sources – a refused key creates nothing", async () => {
    for (const key of [revokedKey, consoleCliKey, teamCliKey]) {
      expect((await api({ apiKey: key }, "POST", `${V}/sources`, { name: "not-created" })).status).toBe(401);
    }
    expect((await api(team, "GET", `${V}/sources/count?name=not-created&disabled=true`)).json).toEqual({ count: 0 });
  });

  it("DELETE /sources/{id} – 401 without a key; the source survives", async () => {
    expect((await api(null, "DELETE", `${V}/sources/${sourceId}`)).status).toBe(401);
    expect((await api(team, "GET", `${V}/sources/${sourceId}`)).status).toBe(200);
  });

  it("revoking one key leaves the team's other keys working", async () => {
    const second = await createApiKey(team.teamId, "second");
    expect((await api({ apiKey: second.key }, "GET", `${V}/sources/${sourceId}`)).status).toBe(200);
    await revokeApiKey(second.key);
    expect((await api({ apiKey: second.key }, "GET", `${V}/sources/${sourceId}`)).status).toBe(401);
    expect((await api(team, "GET", `${V}/sources/${sourceId}`)).status).toBe(200);
  });

  it("unknown endpoint → 401 without a key, 404 gateway body with one", async () => {
    expect((await api(null, "GET", `${V}/nothing-here`)).status).toBe(401);
    const r = await api(team, "GET", `${V}/nothing-here`);
    expect(r.status).toBe(404);
    expect(r.json).toMatchObject({ handled: true, status: 404, message: "Not Found", code: "NOT_FOUND" });
  });
});

describe("team isolation", () => {
  let a: TestTeam;
  let b: TestTeam;
  let mine: any;
  beforeAll(async () => {
    a = await newTeam("iso-a");
    b = await newTeam("iso-b");
    mine = (
      await api(a, "POST", `${V}/sources`, {
        name: "private",
        description: "mine",
        config: { auth_type: "API_KEY", auth: { header_key: "x-k", api_key: "a-secret" } },
      })
    ).json;
  });

  it.each([
    ["GET", (id: string) => `${V}/sources/${id}`, undefined],
    ["GET", (id: string) => `${V}/sources/${id}?include=config.auth`, undefined],
    ["PUT", (id: string) => `${V}/sources/${id}`, { description: "stolen" }],
    ["PUT", (id: string) => `${V}/sources/${id}/disable`, undefined],
    ["PUT", (id: string) => `${V}/sources/${id}/archive`, undefined],
    ["PUT", (id: string) => `${V}/sources/${id}/enable`, undefined],
    ["DELETE", (id: string) => `${V}/sources/${id}`, undefined],
    ["GET", (id: string) => `/2024-09-01/sources/${id}`, undefined],
  ] as const)("%s – another team's source → 404 NOT_FOUND with its id", async (method, path, body) => {
    const r = await api(b, method, path(mine.id), body);
    expect(r.status).toBe(404);
    expect(r.json).toEqual({ handled: true, status: 404, message: "Not Found", code: "NOT_FOUND", data: { id: mine.id } });
  });

  it("GET /sources and /sources/count – another team's source is not listed or counted, by id, name or filter", async () => {
    for (const q of [`id=${mine.id}&disabled=true`, "name=private", "name[contains]=priv", "disabled=true", "include=config.auth"]) {
      const list = await api(b, "GET", `${V}/sources?${q}`);
      expect(list.status).toBe(200);
      expect(list.json.models).toEqual([]);
      expect(JSON.stringify(list.json)).not.toContain("a-secret");
      expect((await api(b, "GET", `${V}/sources/count?${q}`)).json).toEqual({ count: 0 });
    }
  });

  it("the owner's source is untouched by the other team's attempts", async () => {
    const r = await api(a, "GET", `${V}/sources/${mine.id}?include=config.auth`);
    expect(r.status).toBe(200);
    expect(r.json.description).toBe("mine");
    expect(r.json.disabled_at).toBeNull();
    expect(r.json.config.auth).toEqual({ header_key: "x-k", api_key: "a-secret" });
  });

  it("names are unique per team: team B can create and upsert a source named like team A's", async () => {
    const created = await api(b, "POST", `${V}/sources`, { name: "private" });
    expect(created.status).toBe(200);
    expect(created.json.id).not.toBe(mine.id);
    const upserted = await api(b, "PUT", `${V}/sources`, { name: "private", description: "b's" });
    expect(upserted.json.id).toBe(created.json.id);
    expect((await api(a, "GET", `${V}/sources/${mine.id}`)).json.description).toBe("mine");
    expect((await api(a, "GET", `${V}/sources/count`)).json).toEqual({ count: 1 });
  });

  it("console test URLs (guest sources) never appear in a team's lists and are 404 by id", async () => {
    const t = await newTestUrl({ name: "console-only-source" });
    const consoleId = `src_${new URL(t.ingest_url).pathname.split("/").pop()}`;
    const { rows } = await db().query("SELECT s.team_id, tm.mode FROM sources s JOIN teams tm ON tm.id = s.team_id WHERE s.id = $1", [consoleId]);
    expect(rows).toHaveLength(1);
    expect(rows[0].mode).not.toBe("TEAM");
    for (const team of [a, b]) {
      expect((await api(team, "GET", `${V}/sources/${consoleId}`)).status).toBe(404);
      expect((await api(team, "GET", `${V}/sources?disabled=true&limit=250`)).json.models.map((m: any) => m.id)).not.toContain(consoleId);
      expect((await api(team, "GET", `${V}/sources?name=console-only-source&disabled=true`)).json.models).toEqual([]);
      expect((await api(team, "GET", `${V}/sources/count?id=${consoleId}&disabled=true`)).json).toEqual({ count: 0 });
      expect((await api(team, "DELETE", `${V}/sources/${consoleId}`)).status).toBe(404);
    }
    expect((await db().query("SELECT 1 FROM sources WHERE id = $1", [consoleId])).rowCount).toBe(1);
  });
});

describe("rate limit", () => {
  it("GET /sources/count – 240 per minute per key: Remaining counts down, the 241st → 429 with Retry-After and X-RateLimit-*; another key is unaffected", async () => {
    // Fixed one-minute windows: start with at least 15 s of the minute left.
    const secondsLeft = 60 - new Date().getUTCSeconds();
    if (secondsLeft < 15) await new Promise((r) => setTimeout(r, secondsLeft * 1000 + 300));
    const t = await newTeam("rate");
    const sameTeamKey = (await createApiKey(t.teamId, "second")).key;
    const windowEnd = Math.ceil(Date.now() / 60_000) * 60_000;
    for (let i = 1; i <= 240; i++) {
      const a = await api(t, "GET", `${V}/sources/count`);
      expect(a.status).toBe(200);
      expect(a.headers.get("x-ratelimit-limit")).toBe("240");
      expect(a.headers.get("x-ratelimit-remaining")).toBe(String(240 - i));
      expect(a.headers.get("x-ratelimit-reset")).toBe(new Date(windowEnd).toISOString());
      expect(a.headers.get("retry-after")).toBeNull();
    }
    const limited = await api(t, "GET", `${V}/sources/count`);
    expect(limited.status).toBe(429);
    expect(limited.json).toMatchObject({ handled: true, status: 429, message: "Too Many Requests", code: "TOO_MANY_REQUESTS" });
    expect(typeof limited.json.data.message).toBe("string");
    const retryAfter = Number(limited.headers.get("retry-after"));
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(limited.headers.get("x-ratelimit-limit")).toBe("240");
    expect(limited.headers.get("x-ratelimit-remaining")).toBe("0");
    const resetRaw = limited.headers.get("x-ratelimit-reset")!;
    expect(new Date(resetRaw).toISOString()).toBe(resetRaw);
    const reset = Date.parse(resetRaw);
    expect(reset).toBeGreaterThan(Date.now());
    expect(reset - Date.now()).toBeLessThanOrEqual(60_000);
    expect(Math.abs(reset - Date.now() - retryAfter * 1000)).toBeLessThanOrEqual(2_000);

    // The limit is per key and across endpoints: a write with the same key is refused and changes nothing.
    const write = await api(t, "POST", `${V}/sources`, { name: "over-limit" });
    expect(write.status).toBe(429);
    expect(write.headers.get("retry-after")).not.toBeNull();
    // Other keys, of this team or another, are unaffected.
    const other = await api({ apiKey: sameTeamKey }, "GET", `${V}/sources/count?disabled=true`);
    expect(other.status).toBe(200);
    expect(other.json).toEqual({ count: 0 });
    expect(other.headers.get("x-ratelimit-remaining")).toBe("239");
    expect((await api(team, "GET", `${V}/sources/count`)).status).toBe(200);
  }, 90_000);
});
