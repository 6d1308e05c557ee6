/**
 * `POST /` (docs/console-api.md#post-, docs/console-api.md#errors):
 * the Test URL answer, defaults, provider types, validation errors, unique names and ids.
 * Every create sends its own X-Forwarded-For (uniqueIp) so rate limits never interfere.
 */
import { describe, expect, it } from "vitest";
import { BASE_URL, createTestUrl, db, newTestUrl, uniqueIp } from "./support/client";

type TestUrl = { ingest_url: string; inspect_url: string; type: string; name: string; cli_key: string; cmd_hint: string };
const ID_RE = /^[0-9A-Za-z]{22}$/;

async function expect422(body: unknown) {
  const res = await createTestUrl(body);
  const text = await res.text();
  expect(res.status, text).toBe(422);
  expect(res.headers.get("content-type")).toMatch(/^application\/json/);
  const json = JSON.parse(text) as { code: unknown; status: unknown; data: unknown };
  expect(json.code).toBe("UNPROCESSABLE_ENTITY");
  expect(json.status).toBe(422);
  expect(Array.isArray(json.data)).toBe(true);
  const data = json.data as unknown[];
  expect(data.length).toBeGreaterThan(0);
  for (const m of data) expect(typeof m).toBe("string");
  // A rejected create must not set a session cookie nor announce a resource.
  expect(res.headers.get("location")).toBeNull();
  expect(res.headers.get("set-cookie")).toBeNull();
  // The create was counted: its answer says how many are left.
  expect(res.headers.get("x-ratelimit-remaining")).toBe("59");
  return data as string[];
}

describe("POST / – Test URL answer", () => {
  it("POST / – 201 with all six Test URL fields, Location = inspect_url, no redirect", async () => {
    const res = await createTestUrl({ name: "answer-shape" });
    expect(res.status).toBe(201);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    const body = (await res.json()) as TestUrl;
    expect(Object.keys(body).sort()).toEqual(["cli_key", "cmd_hint", "ingest_url", "inspect_url", "name", "type"]);
    for (const k of Object.keys(body) as (keyof TestUrl)[]) {
      expect(typeof body[k]).toBe("string");
      expect(body[k].length).toBeGreaterThan(0);
    }
    const id = new URL(body.inspect_url).pathname.slice(1);
    expect(id).toMatch(ID_RE);
    expect(body.inspect_url).toBe(`${BASE_URL}/${id}`);
    expect(body.ingest_url).toBe(`${BASE_URL}/e/${id}`);
    expect(res.headers.get("location")).toBe(body.inspect_url);
    expect(body.type).toBe("WEBHOOK");
    expect(body.name).toBe("answer-shape");
  });

  it("POST / – the created source is stored with the returned id, name and type", async () => {
    const t = await newTestUrl({ name: "stored-check", type: "GITHUB" });
    const { rows } = await db().query("SELECT id, name, type FROM sources WHERE id = $1", [`src_${t.id}`]);
    expect(rows).toEqual([{ id: `src_${t.id}`, name: "stored-check", type: "GITHUB" }]);
  });

  it("POST / – empty body → 201 WEBHOOK named Source", async () => {
    const res = await createTestUrl(undefined);
    expect(res.status).toBe(201);
    const body = (await res.json()) as TestUrl;
    expect(body.type).toBe("WEBHOOK");
    expect(body.name).toBe("Source");
  });

  it("POST / – empty body without content-type → 201", async () => {
    const res = await fetch(`${BASE_URL}/`, { method: "POST", redirect: "manual", headers: { "x-forwarded-for": uniqueIp() } });
    expect(res.status).toBe(201);
    expect(((await res.json()) as TestUrl).type).toBe("WEBHOOK");
  });

  it("POST / – {} → 201, type omitted gives WEBHOOK, default name Source", async () => {
    const res = await createTestUrl({});
    expect(res.status).toBe(201);
    const body = (await res.json()) as TestUrl;
    expect(body.type).toBe("WEBHOOK");
    expect(body.name).toBe("Source");
  });

  it("POST / – known provider type STRIPE → 201 and keeps its type", async () => {
    const res = await createTestUrl({ type: "STRIPE", name: "stripe-hooks" });
    expect(res.status).toBe(201);
    const body = (await res.json()) as TestUrl;
    expect(body.type).toBe("STRIPE");
    expect(body.name).toBe("stripe-hooks");
  });

  it("POST / – explicit WEBHOOK type → 201 WEBHOOK", async () => {
    const t = await newTestUrl({ type: "WEBHOOK" });
    expect(t.type).toBe("WEBHOOK");
  });

  it("POST / – name of exactly 155 characters is accepted as is", async () => {
    const name = "n".repeat(155);
    const t = await newTestUrl({ name });
    expect(t.name).toBe(name);
  });

  it("POST / – cmd_hint contains the cli_key, listen, [port] and <source-name>", async () => {
    const t = await newTestUrl({});
    expect(t.cli_key.length).toBeGreaterThanOrEqual(16);
    expect(t.cmd_hint).toContain(t.cli_key);
    expect(t.cmd_hint).toContain("listen");
    expect(t.cmd_hint).toContain("[port]");
    expect(t.cmd_hint).toContain("<source-name>");
  });
});

describe("POST / – 422 validation errors", () => {
  it("POST / – unsupported type → 422", async () => {
    const data = await expect422({ type: "NOT_A_REAL_PROVIDER" });
    expect(data.join(" ")).toContain("type");
  });

  it.each(["DISCORD", "ZOOM", "X", "PAYPAL", "TWITCH"])("POST / – type %s requiring authentication → 422", async (type) => {
    const data = await expect422({ type });
    expect(data.join(" ")).toContain(type);
  });

  it("POST / – the retired combined type CHARGEBEE → 422 (the console follows the newest API version)", async () => {
    const data = await expect422({ type: "CHARGEBEE" });
    expect(data.join(" ")).toContain("CHARGEBEE");
  });

  it("POST / – lower-case type (stripe) → 422", async () => {
    await expect422({ type: "stripe" });
  });

  it("POST / – type longer than 64 characters → 422", async () => {
    await expect422({ type: "A".repeat(65) });
  });

  it("POST / – name longer than 155 characters → 422", async () => {
    const data = await expect422({ name: "n".repeat(156) });
    expect(data.join(" ")).toContain("name");
  });

  it("POST / – number as name → 422", async () => {
    await expect422({ name: 42 });
  });

  it("POST / – number as type → 422", async () => {
    await expect422({ type: 7 });
  });

  it("POST / – array body → 422", async () => {
    await expect422([]);
    await expect422([{ name: "x" }]);
  });

  it("POST / – JSON null / string body → 422", async () => {
    await expect422("null");
    await expect422('"Source"');
  });

  it("POST / – unknown property → 422", async () => {
    const data = await expect422({ name: "x", color: "red" });
    expect(data.join(" ")).toContain("color");
  });

  it("POST / – malformed JSON → 422", async () => {
    await expect422("{not json");
    await expect422('{"name": "x",}');
  });

  it("POST / – oversized create body (over 64 KiB) is refused without a server error", async () => {
    const res = await createTestUrl({ name: "x".repeat(100_000) });
    expect([413, 422]).toContain(res.status);
    expect(res.headers.getSetCookie()).toEqual([]);
  });

  it("POST / – a rejected create stores no source", async () => {
    await expect422({ type: "ZOOM" });
    await expect422({ name: "n".repeat(156) });
    await expect422("{");
    // Other files create sources concurrently, so look for what only these rejected bodies could have made.
    const { rows } = await db().query("SELECT 1 FROM sources WHERE type = 'ZOOM' OR length(name) > 155");
    expect(rows).toHaveLength(0);
  });
});

describe("POST / – names", () => {
  it("POST / – taken name gets a suffix within one workspace: Source, Source-2, Source-3", async () => {
    const first = await newTestUrl({});
    expect(first.name).toBe("Source");
    expect(first.cookie).toBeTruthy();
    const second = await newTestUrl({}, { cookie: first.cookie });
    const third = await newTestUrl({ name: "Source" }, { cookie: first.cookie });
    expect(second.name).toBe("Source-2");
    expect(third.name).toBe("Source-3");
    expect(new Set([first.id, second.id, third.id]).size).toBe(3);
  });

  it("POST / – same name in another workspace gets no suffix", async () => {
    const a = await newTestUrl({ name: "shared-name" });
    const b = await newTestUrl({ name: "shared-name" });
    expect(a.name).toBe("shared-name");
    expect(b.name).toBe("shared-name");
    expect(a.cli_key).not.toBe(b.cli_key);
  });

  it("POST / – suffixed 155-character name stays within 155 characters", async () => {
    const name = "L".repeat(155);
    const first = await newTestUrl({ name });
    const second = await newTestUrl({ name }, { cookie: first.cookie });
    expect(first.name).toBe(name);
    expect(second.name).toHaveLength(155);
    expect(second.name.endsWith("-2")).toBe(true);
    expect(second.name).toBe(`${"L".repeat(153)}-2`);
  });

  it("POST / – 20 concurrent creates with one name in one workspace all 201 with distinct names", async () => {
    const first = await newTestUrl({ name: "burst" });
    const responses = await Promise.all(Array.from({ length: 20 }, () => createTestUrl({ name: "burst" }, { cookie: first.cookie })));
    const statuses = responses.map((r) => r.status);
    expect(statuses).toEqual(Array(20).fill(201));
    const names = await Promise.all(responses.map(async (r) => ((await r.json()) as TestUrl).name));
    expect(new Set([first.name, ...names]).size).toBe(21);
    const expected = ["burst", ...Array.from({ length: 20 }, (_, i) => `burst-${i + 2}`)].sort();
    expect([first.name, ...names].sort()).toEqual(expected);
  });
});

describe("POST / – ids", () => {
  it("POST / – public id is 22 base62 characters and the stored id is src_<id>", async () => {
    const t = await newTestUrl({});
    expect(t.id).toMatch(ID_RE);
    const { rows } = await db().query("SELECT id FROM sources WHERE id = $1", [`src_${t.id}`]);
    expect(rows).toHaveLength(1);
  });

  it("POST / – consecutive creates give unrelated ids (no shared time prefix)", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) ids.push((await newTestUrl({})).id);
    expect(new Set(ids).size).toBe(ids.length);
    for (let i = 1; i < ids.length; i++) {
      const a = ids[i - 1];
      const b = ids[i];
      let common = 0;
      while (common < a.length && a[common] === b[common]) common++;
      // A time-ordered id would share 6+ leading characters with the one made a moment before.
      expect(common, `${a} vs ${b}`).toBeLessThan(6);
    }
  });
});

describe("POST / – cli_key", () => {
  it("POST / – cli_key is the same for sources of one workspace and differs across workspaces", async () => {
    const a1 = await newTestUrl({});
    const a2 = await newTestUrl({}, { cookie: a1.cookie });
    const b1 = await newTestUrl({});
    expect(a2.cli_key).toBe(a1.cli_key);
    expect(b1.cli_key).not.toBe(a1.cli_key);
  });

  it("POST / – cli_key as Authorization: Bearer authenticates nothing: a new workspace starts", async () => {
    const a = await newTestUrl({ name: "bearer-owner" });
    const res = await createTestUrl({ name: "bearer-owner" }, { headers: { authorization: `Bearer ${a.cli_key}` } });
    expect(res.status).toBe(201);
    const body = (await res.json()) as TestUrl;
    expect(res.headers.get("set-cookie")).toMatch(/^hookyard_session=/);
    expect(body.cli_key).not.toBe(a.cli_key);
    // A different workspace: the taken name gets no suffix.
    expect(body.name).toBe("bearer-owner");
    const { rows } = await db().query<{ team_id: string }>("SELECT team_id FROM sources WHERE id = ANY($1) ORDER BY id", [
      [`src_${a.id}`, `src_${new URL(body.inspect_url).pathname.slice(1)}`],
    ]);
    expect(rows).toHaveLength(2);
    expect(rows[0].team_id).not.toBe(rows[1].team_id);
  });
});
