/**
 * Gateway `/connections` (docs/gateway-api.md#connections,
 * docs/pipeline.md#connection-rules): minimum body, inline or referenced source and destination, rules, upsert, pause,
 * versions, isolation, paging.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { db } from "./support/client";
import { api, newTeam, type TestTeam } from "./support/gateway";

let team: TestTeam;
let other: TestTeam;
beforeAll(async () => {
  team = await newTeam("connections");
  other = await newTeam("other");
});
const V = "/2025-07-01";
const minimum = (n: string) => ({
  name: `conn-${n}`,
  source: { name: `src-${n}` },
  destination: { name: `dst-${n}`, config: { url: "https://example.com/in" } },
});

describe("POST /connections", () => {
  it("POST /connections – the spec's minimum body creates source, destination and connection", async () => {
    const { status, json } = await api(team, "POST", `${V}/connections`, minimum("a"));
    expect(status).toBe(200);
    expect(json.id).toMatch(/^web_/);
    expect(json.full_name).toBe("src-a -> conn-a");
    expect(json.rules).toEqual([]);
    expect(json.paused_at).toBeNull();
    expect(json.disabled_at).toBeNull();
    expect(json.source).toMatchObject({ name: "src-a", type: "WEBHOOK" });
    expect(json.source.url).toMatch(/\/e\/[0-9A-Za-z]{22}$/);
    expect(json.destination).toMatchObject({ name: "dst-a", type: "HTTP", config: { url: "https://example.com/in", auth_type: "GATEWAY_SIGNATURE" } });
  });

  it("POST /connections – inline source/destination with an existing name are reused; ids reference existing ones", async () => {
    const first = (await api(team, "POST", `${V}/connections`, minimum("b"))).json;
    const second = await api(team, "POST", `${V}/connections`, { ...minimum("b"), name: "conn-b2" });
    expect(second.json.source.id).toBe(first.source.id);
    expect(second.json.destination.id).toBe(first.destination.id);
    const third = await api(team, "POST", `${V}/connections`, { name: "conn-b3", source_id: first.source.id, destination_id: first.destination.id });
    expect(third.status).toBe(200);
    expect(third.json.full_name).toBe("src-b -> conn-b3");
  });

  it("POST /connections – same name on the same source → 409; a failed create leaves no source or destination behind", async () => {
    await api(team, "POST", `${V}/connections`, minimum("c"));
    expect((await api(team, "POST", `${V}/connections`, minimum("c"))).status).toBe(409);
    const bad = await api(team, "POST", `${V}/connections`, { name: "x", source: { name: "orphan-src" }, destination: { name: "orphan-dst" } });
    expect(bad.status).toBe(422);
    expect(bad.json.data).toMatchObject({ field: "destination.config.url", type: "HTTP", message: "HTTP destination requires `config.url`." });
    expect((await db().query("SELECT 1 FROM sources WHERE team_id = $1 AND name = 'orphan-src'", [team.teamId])).rowCount).toBe(0);
    const badRule = await api(team, "POST", `${V}/connections`, { ...minimum("orphan2"), rules: [{ type: "transform", transformation_id: "trs_nope" }] });
    expect(badRule.status).toBe(422);
    expect((await db().query("SELECT 1 FROM destinations WHERE team_id = $1 AND name = 'dst-orphan2'", [team.teamId])).rowCount).toBe(0);
  });

  it.each([
    [{ name: "n", source: { name: "s" } }, "destination"],
    [{ name: "n", source_id: "src_nope", destination: { name: "d", config: { url: "https://e.com" } } }, "source_id"],
    [{ ...minimum("r1"), rules: [{ type: "retry", strategy: "linear", count: 51 }] }, "rules.0.count"],
    [{ ...minimum("r2"), rules: [{ type: "retry", strategy: "linear", response_status_codes: ["5xx"] }] }, "rules.0.response_status_codes.0"],
    [{ ...minimum("r3"), rules: [{ type: "deduplicate", window: 0 }] }, "rules.0.window"],
    [{ ...minimum("r4"), rules: [{ type: "deduplicate", window: 1.5 }] }, "rules.0.window"],
    [{ ...minimum("r5"), rules: [{ type: "transform", transformation_id: "trs_missing" }] }, "rules.0.transformation_id"],
    [{ ...minimum("r6"), rules: [{ type: "teleport" }] }, "rules.0.type"],
    [{ ...minimum("r7"), rules: [{ type: "retry", strategy: "linear", response_status_codes: ["599-500"] }] }, "rules.0.response_status_codes.0"],
    [{ ...minimum("r8"), rules: [{ type: "retry", strategy: "sometimes" }] }, "rules.0.strategy"],
    [{ ...minimum("r9"), rules: [{ type: "retry", strategy: "linear", interval: -1 }] }, "rules.0.interval"],
    [{ ...minimum("r10"), rules: [{ type: "delay", delay: -5 }] }, "rules.0.delay"],
    [{ ...minimum("r11"), rules: [{ type: "deduplicate", window: 3601 }] }, "rules.0.window"],
    [{ ...minimum("r12"), rules: [{ type: "filter", headers: "x" }] }, "rules.0.headers"],
    [{ ...minimum("r13"), rules: [{ type: "filter", path: 5 }] }, "rules.0.path"],
    [{ ...minimum("r14"), rules: [{ type: "transform", transformation: { name: "t", code: "x", env: { K: 1 } } }] }, "rules.0.transformation.env.K"],
    [{ ...minimum("r15"), rules: [{ type: "transform" }] }, "rules.0.transformation_id"],
    [{ name: "n", source: { name: "s" }, destination: { name: "d", type: "CLI", config: { path: "/x", rate_limit: 2 } } }, "destination.config.rate_limit"],
    [
      { name: "n", source: { name: "s2", config: { auth_type: "HMAC", auth: {} } }, destination: { name: "d", config: { url: "https://e.com" } } },
      "source.config.auth.algorithm",
    ],
    [{ name: "n", source: { name: "s3" }, destination_id: "des_nope" }, "destination_id"],
    [{ source: { name: "s4" }, destination: { name: "d", config: { url: "https://e.com" } } }, "name"],
  ])("POST /connections – %j → 422 naming %s", async (body, field) => {
    const { status, json } = await api(team, "POST", `${V}/connections`, body);
    expect(status).toBe(422);
    expect(json.data.field).toBe(field);
  });

  it("POST /connections – an existing source or destination reused by name keeps its config", async () => {
    const src = (await api(team, "POST", `${V}/sources`, { name: "kept-src", config: { allowed_http_methods: ["POST"] } })).json;
    const dst = (await api(team, "POST", `${V}/destinations`, { name: "kept-dst", config: { url: "https://e.com/kept", rate_limit: 7 } })).json;
    const { json } = await api(team, "POST", `${V}/connections`, {
      name: "reuse",
      source: { name: "kept-src", config: { allowed_http_methods: ["PUT"] } },
      destination: { name: "kept-dst", config: { url: "https://e.com/other" } },
    });
    expect(json.source).toMatchObject({ id: src.id, config: { allowed_http_methods: ["POST"] } });
    expect(json.destination).toMatchObject({ id: dst.id, config: { url: "https://e.com/kept", rate_limit: 7 } });
  });

  it("POST /connections – another team's source id → 422, never linked", async () => {
    const mine = (await api(team, "POST", `${V}/sources`, { name: "mine-only" })).json;
    const r = await api(other, "POST", `${V}/connections`, { name: "steal", source_id: mine.id, destination: { name: "d", config: { url: "https://e.com" } } });
    expect(r.status).toBe(422);
    expect(r.json.data).toMatchObject({ field: "source_id", id: mine.id });
  });
});

describe("rules", () => {
  it("POST /connections – rules round-trip in order; an inline transformation is created and referenced by id; rules_version recorded", async () => {
    const rules = [
      { type: "deduplicate", window: 60, include_fields: ["body.id"], exclude_fields: ["headers"] },
      { type: "transform", transformation: { name: "add-flag", code: 'addHandler("transform", (r) => r)', env: { K: "secret-env" } } },
      { type: "filter", body: { type: { $in: ["a", "b"] } }, headers: { "x-kind": "order" }, path: { $startsWith: "/orders" } },
      { type: "delay", delay: 5000 },
      { type: "retry", strategy: "exponential", count: 5, interval: 60000, response_status_codes: ["500-599", ">=429", "!501", "404"] },
    ];
    const { status, json } = await api(team, "POST", `${V}/connections`, { ...minimum("rules"), rules });
    expect(status).toBe(200);
    expect(json.rules.map((r: any) => r.type)).toEqual(["deduplicate", "transform", "filter", "delay", "retry"]);
    expect(json.rules[1]).toEqual({ type: "transform", transformation_id: expect.stringMatching(/^trs_/) });
    expect(json.rules[0]).toEqual(rules[0]);
    expect(json.rules[2]).toEqual(rules[2]);
    expect(json.rules[4]).toEqual(rules[4]);
    const { rows } = await db().query("SELECT name, code, env_encrypted FROM transformations WHERE id = $1", [json.rules[1].transformation_id]);
    expect(rows[0].name).toBe("add-flag");
    expect(rows[0].env_encrypted).not.toContain("secret-env");
    const ref = await api(team, "POST", `${V}/connections`, {
      ...minimum("rules2"),
      rules: [{ type: "transform", transformation_id: json.rules[1].transformation_id }],
    });
    expect(ref.status).toBe(200);
    expect((await db().query("SELECT rules_version FROM connections WHERE id = $1", [json.id])).rows[0].rules_version).toBe("2025-07-01");
  });

  it("POST /2025-01-01/connections – the deduplicate rule → 422; rules written with an older version record it", async () => {
    const dedup = await api(team, "POST", "/2025-01-01/connections", { ...minimum("old1"), rules: [{ type: "deduplicate", window: 60 }] });
    expect(dedup.status).toBe(422);
    expect(dedup.json.data.field).toBe("rules.0.type");
    const old = await api(team, "POST", "/2025-01-01/connections", { ...minimum("old2"), rules: [{ type: "filter", body: { a: 1 } }] });
    expect((await db().query("SELECT rules_version FROM connections WHERE id = $1", [old.json.id])).rows[0].rules_version).toBe("2025-01-01");
    const rewritten = await api(team, "PUT", `${V}/connections/${old.json.id}`, { rules: [{ type: "delay", delay: 1 }] });
    expect(rewritten.json.rules).toEqual([{ type: "delay", delay: 1 }]);
    expect((await db().query("SELECT rules_version FROM connections WHERE id = $1", [old.json.id])).rows[0].rules_version).toBe("2025-07-01");
  });
});

describe("connections – update, upsert, pause, disable, delete, list", () => {
  it("PUT /connections – upsert by name + source updates; a different destination → 422", async () => {
    const created = (await api(team, "PUT", `${V}/connections`, minimum("up"))).json;
    const updated = await api(team, "PUT", `${V}/connections`, { ...minimum("up"), description: "now described", rules: [{ type: "delay", delay: 10 }] });
    expect(updated.json.id).toBe(created.id);
    expect(updated.json.description).toBe("now described");
    expect(updated.json.rules).toEqual([{ type: "delay", delay: 10 }]);
    const moved = await api(team, "PUT", `${V}/connections`, { ...minimum("up"), destination: { name: "elsewhere", config: { url: "https://e.com" } } });
    expect(moved.status).toBe(422);
  });

  it("PUT /connections/{id}/pause|unpause|disable|enable, rename updates full_name, DELETE", async () => {
    const c = (await api(team, "POST", `${V}/connections`, minimum("life"))).json;
    expect((await api(team, "PUT", `${V}/connections/${c.id}/pause`)).json.paused_at).not.toBeNull();
    expect((await api(team, "GET", `${V}/connections?paused_at[any]=true&id=${c.id}`)).json.models).toHaveLength(1);
    expect((await api(team, "PUT", `${V}/connections/${c.id}/unpause`)).json.paused_at).toBeNull();
    expect((await api(team, "PUT", `${V}/connections/${c.id}/disable`)).json.disabled_at).not.toBeNull();
    expect((await api(team, "GET", `${V}/connections?id=${c.id}`)).json.models).toHaveLength(0);
    expect((await api(team, "PUT", `${V}/connections/${c.id}/enable`)).json.disabled_at).toBeNull();
    expect((await api(team, "PUT", `${V}/connections/${c.id}`, { name: "renamed" })).json.full_name).toBe("src-life -> renamed");
    expect((await api(other, "GET", `${V}/connections/${c.id}`)).status).toBe(404);
    expect((await api(other, "DELETE", `${V}/connections/${c.id}`)).status).toBe(404);
    expect((await api(team, "DELETE", `${V}/connections/${c.id}`)).json).toEqual({ id: c.id });
    expect((await api(team, "GET", `${V}/connections/${c.id}`)).status).toBe(404);
  });

  it("GET /connections – filters (source_id, full_name, name[contains]) and paging by name both ways", async () => {
    const t = await newTeam("conn-list");
    const src = (await api(t, "POST", `${V}/sources`, { name: "hub" })).json;
    const dst = (await api(t, "POST", `${V}/destinations`, { name: "sink", config: { url: "https://e.com" } })).json;
    const names = Array.from({ length: 7 }, (_, i) => `c${(i * 3) % 7}`);
    for (const name of names) await api(t, "POST", `${V}/connections`, { name, source_id: src.id, destination_id: dst.id });
    await api(t, "POST", `${V}/connections`, minimum("elsewhere"));
    expect((await api(t, "GET", `${V}/connections/count?source_id=${src.id}`)).json).toEqual({ count: 7 });
    expect((await api(t, "GET", `${V}/connections?full_name=${encodeURIComponent("hub -> c3")}`)).json.models.map((m: any) => m.name)).toEqual(["c3"]);
    expect((await api(t, "GET", `${V}/connections?name[contains]=ELSE`)).json.models.map((m: any) => m.name)).toEqual(["conn-elsewhere"]);
    expect((await api(t, "GET", `${V}/connections/count?full_name[contains]=${encodeURIComponent("hub -> c")}&destination_id[]=${dst.id}`)).json).toEqual({
      count: 7,
    });
    expect((await api(t, "GET", `${V}/connections/count?source_id=${src.id}&type=ignored`)).json).toEqual({ count: 7 });
    for (const bad of ["paused_at[gte]=soon", "source_id[between]=a", "disabled=perhaps", "full_name[gt]=a"]) {
      const res = await api(t, "GET", `${V}/connections?${bad}`);
      expect(res.status, bad).toBe(400);
      expect(res.json.message).toContain(bad.split(/[[=]/)[0]);
    }
    const q = `source_id=${src.id}&order_by=name&dir=desc&limit=3`;
    const p1 = (await api(t, "GET", `${V}/connections?${q}`)).json;
    const p2 = (await api(t, "GET", `${V}/connections?${q}&next=${p1.pagination.next}`)).json;
    const p3 = (await api(t, "GET", `${V}/connections?${q}&next=${p2.pagination.next}`)).json;
    expect([...p1.models, ...p2.models, ...p3.models].map((m: any) => m.name)).toEqual([...names].sort().reverse());
    expect(p3.pagination.next).toBeUndefined();
    const back = (await api(t, "GET", `${V}/connections?${q}&prev=${p2.pagination.prev}`)).json;
    expect(back.models.map((m: any) => m.name)).toEqual(p1.models.map((m: any) => m.name));
  });

  it("2024-09-01 – inline flat source/destination in, flat shapes out inside the connection", async () => {
    const { status, json } = await api(team, "POST", "/2024-09-01/connections", {
      name: "legacy",
      source: { name: "legacy-src", allowed_http_methods: ["POST"] },
      destination: { name: "legacy-dst", url: "https://e.com/legacy" },
    });
    expect(status).toBe(200);
    expect(json.source.allowed_http_methods).toEqual(["POST"]);
    expect(json.source.type).toBeUndefined();
    expect(json.destination.url).toBe("https://e.com/legacy");
    expect(json.destination.config).toBeUndefined();
  });
});

describe("connections – more", () => {
  it("GET /connections/{id} – unknown id → 404 on every operation", async () => {
    for (const [method, path] of [
      ["GET", "web_nope"],
      ["PUT", "web_nope"],
      ["DELETE", "web_nope"],
      ["PUT", "web_nope/pause"],
      ["PUT", "web_nope/unpause"],
      ["PUT", "web_nope/disable"],
      ["PUT", "web_nope/archive"],
    ] as const) {
      const r = await api(team, method, `${V}/connections/${path}`, method === "PUT" && !path.includes("/") ? { description: "x" } : undefined);
      expect(r.status, `${method} ${path}`).toBe(404);
    }
    const c = (await api(team, "POST", `${V}/connections`, minimum("badaction"))).json;
    expect((await api(team, "PUT", `${V}/connections/${c.id}/explode`)).status).toBe(404);
  });

  it("PUT /connections/{id} – another team's id → 404 on update, pause, disable; its source/destination cannot be referenced", async () => {
    const c = (await api(team, "POST", `${V}/connections`, minimum("iso"))).json;
    expect((await api(other, "PUT", `${V}/connections/${c.id}`, { name: "hijack" })).status).toBe(404);
    expect((await api(other, "PUT", `${V}/connections/${c.id}/pause`)).status).toBe(404);
    expect((await api(other, "PUT", `${V}/connections/${c.id}/disable`)).status).toBe(404);
    expect((await api(other, "GET", `${V}/connections?id=${c.id}`)).json.models).toEqual([]);
    expect((await api(other, "GET", `${V}/connections/count?source_id=${c.source.id}`)).json).toEqual({ count: 0 });
    const viaDest = await api(other, "POST", `${V}/connections`, { name: "x", source: { name: "o-src" }, destination_id: c.destination.id });
    expect(viaDest.status).toBe(422);
    expect(viaDest.json.data).toMatchObject({ field: "destination_id", id: c.destination.id });
    const upsert = await api(other, "PUT", `${V}/connections`, { name: c.name, source_id: c.source.id, destination_id: c.destination.id });
    expect(upsert.status).toBe(422);
    expect(upsert.json.data.field).toBe("source_id");
    const own = await api(team, "GET", `${V}/connections/${c.id}`);
    expect(own.json).toMatchObject({ name: "conn-iso", paused_at: null, disabled_at: null });
  });

  it("PUT /connections/{id} – rename onto a taken name on the same source → 409; unknown fields → 422", async () => {
    const a = (await api(team, "POST", `${V}/connections`, minimum("ren"))).json;
    await api(team, "POST", `${V}/connections`, { ...minimum("ren"), name: "conn-ren-2" });
    const clash = await api(team, "PUT", `${V}/connections/${a.id}`, { name: "conn-ren-2" });
    expect(clash.status).toBe(409);
    expect(clash.json.data).toMatchObject({ resource_type: "connection", id: expect.stringMatching(/^web_/) });
    const move = await api(team, "PUT", `${V}/connections/${a.id}`, { destination_id: "des_x" });
    expect(move.status).toBe(422);
    expect(move.json.data.field).toBe("destination_id");
    const same = await api(team, "PUT", `${V}/connections/${a.id}`, { description: "kept rules" });
    expect(same.json).toMatchObject({ description: "kept rules", rules: [] });
  });

  it("PUT /connections – upsert with a new name creates; by source_id; an inline transformation is reused on repeat", async () => {
    const body = { ...minimum("up2"), rules: [{ type: "transform", transformation: { name: "up2-t", code: 'addHandler("transform", (r) => r)' } }] };
    const first = await api(team, "PUT", `${V}/connections`, body);
    expect(first.status).toBe(200);
    const again = await api(team, "PUT", `${V}/connections`, body);
    expect(again.json.id).toBe(first.json.id);
    expect(again.json.rules).toEqual(first.json.rules);
    const byId = await api(team, "PUT", `${V}/connections`, {
      name: "conn-up2",
      source_id: first.json.source.id,
      destination_id: first.json.destination.id,
      description: "by ids",
    });
    expect(byId.json).toMatchObject({ id: first.json.id, description: "by ids", rules: first.json.rules });
    const otherDest = (await api(team, "POST", `${V}/destinations`, { name: "up2-other", config: { url: "https://e.com" } })).json;
    const moved = await api(team, "PUT", `${V}/connections`, { name: "conn-up2", source_id: first.json.source.id, destination_id: otherDest.id });
    expect(moved.status).toBe(422);
    expect(moved.json.data).toMatchObject({ field: "destination_id", id: first.json.id });
    expect((await api(team, "GET", `${V}/connections/${first.json.id}`)).json.destination.id).toBe(first.json.destination.id);
  });

  it("GET /connections/count, archive/unarchive, disabled=true and disabled_at filters", async () => {
    const t = await newTeam("conn-count");
    const a = (await api(t, "POST", `${V}/connections`, minimum("k1"))).json;
    const b = (await api(t, "POST", `${V}/connections`, minimum("k2"))).json;
    expect((await api(t, "GET", `${V}/connections/count`)).json).toEqual({ count: 2 });
    expect((await api(t, "PUT", `${V}/connections/${a.id}/archive`)).json.disabled_at).not.toBeNull();
    expect((await api(t, "GET", `${V}/connections/count`)).json).toEqual({ count: 1 });
    expect((await api(t, "GET", `${V}/connections/count?disabled=true`)).json).toEqual({ count: 2 });
    expect((await api(t, "GET", `${V}/connections?disabled_at[any]=true`)).json.models.map((m: any) => m.id)).toEqual([a.id]);
    expect((await api(t, "GET", `${V}/connections?destination_id=${b.destination.id}`)).json.models.map((m: any) => m.id)).toEqual([b.id]);
    expect((await api(t, "PUT", `${V}/connections/${a.id}/unarchive`)).json.disabled_at).toBeNull();
    expect((await api(t, "GET", `${V}/connections?full_name[contains]=src-k`)).json.count).toBe(2);
  });

  it("GET /connections – paging by created_at asc through 4 pages, forward then back", async () => {
    const t = await newTeam("conn-paging");
    const made: string[] = [];
    for (let i = 0; i < 10; i++) made.push((await api(t, "POST", `${V}/connections`, { ...minimum(`p${i}`), name: `p${i}` })).json.id);
    const q = "order_by=created_at&dir=asc&limit=3";
    const pages: any[] = [(await api(t, "GET", `${V}/connections?${q}`)).json];
    while (pages.at(-1).pagination.next) pages.push((await api(t, "GET", `${V}/connections?${q}&next=${pages.at(-1).pagination.next}`)).json);
    expect(pages).toHaveLength(4);
    expect(pages.flatMap((p) => p.models.map((m: any) => m.id))).toEqual(made);
    expect(pages[0].pagination).toMatchObject({ order_by: "created_at", dir: "asc", limit: 3 });
    expect(pages[0].pagination.prev).toBeUndefined();
    let back = pages[3];
    const seen: string[][] = [];
    while (back.pagination.prev) {
      back = (await api(t, "GET", `${V}/connections?${q}&prev=${back.pagination.prev}`)).json;
      seen.unshift(back.models.map((m: any) => m.id));
    }
    expect(seen.flat()).toEqual(made.slice(0, 9));
  });

  it("2025-01-01 – type + config shapes inside the connection; the deduplicate rule → 422", async () => {
    const { status, json } = await api(team, "POST", "/2025-01-01/connections", {
      name: "v2501",
      source: { name: "v2501-src", type: "WEBHOOK" },
      destination: { name: "v2501-dst", type: "HTTP", config: { url: "https://e.com/2501" } },
      rules: [{ type: "retry", strategy: "linear", count: 0, interval: 30000, response_status_codes: [">=500"] }],
    });
    expect(status).toBe(200);
    expect(json.source).toMatchObject({ type: "WEBHOOK", config: { allowed_http_methods: ["POST", "PUT", "PATCH", "DELETE"] } });
    expect(json.destination).toMatchObject({ type: "HTTP", config: { url: "https://e.com/2501" } });
    expect(json.rules).toEqual([{ type: "retry", strategy: "linear", count: 0, interval: 30000, response_status_codes: [">=500"] }]);
    expect((await db().query("SELECT rules_version FROM connections WHERE id = $1", [json.id])).rows[0].rules_version).toBe("2025-01-01");
    const modern = await api(team, "GET", `${V}/connections/${json.id}`);
    expect(modern.json.rules).toEqual(json.rules);
  });

  it("2024-09-01 – dedup refused; type/config in an inline part → 422 naming source./destination.; flat field errors", async () => {
    const dedup = await api(team, "POST", "/2024-09-01/connections", {
      ...minimum("l1"),
      destination: { name: "l1-dst", url: "https://e.com" },
      rules: [{ type: "deduplicate", window: 5 }],
    });
    expect(dedup.status).toBe(422);
    expect(dedup.json.data.field).toBe("rules.0.type");
    const typed = await api(team, "POST", "/2024-09-01/connections", {
      name: "l2",
      source: { name: "l2-src", type: "WEBHOOK" },
      destination: { name: "l2-dst", url: "https://e.com" },
    });
    expect(typed.status).toBe(422);
    expect(typed.json.data.field).toBe("source.type");
    const nourl = await api(team, "POST", "/2024-09-01/connections", {
      name: "l3",
      source: { name: "l3-src" },
      destination: { name: "l3-dst", rate_limit: 3 },
    });
    expect(nourl.status).toBe(422);
    expect(nourl.json.data.field).toBe("destination.url");
    const ok = await api(team, "POST", "/2024-09-01/connections", {
      name: "l4",
      source: { name: "l4-src" },
      destination: { name: "l4-dst", cli_path: "/cli" },
      rules: [
        { type: "filter", body: { ok: true } },
        { type: "transform", transformation: { name: "l4-t", code: "x" } },
      ],
    });
    expect(ok.status).toBe(200);
    expect(ok.json.destination).toMatchObject({ cli_path: "/cli", url: null, auth_method: { type: "GATEWAY_SIGNATURE" } });
    expect(ok.json.rules.map((r: any) => r.type)).toEqual(["filter", "transform"]);
    expect((await db().query("SELECT rules_version FROM connections WHERE id = $1", [ok.json.id])).rows[0].rules_version).toBe("2024-09-01");
  });
});
