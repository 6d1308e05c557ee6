/** Gateway `/transformations`: CRUD, encrypted env, isolation, and `PUT /transformations/run` in the sandbox. */
import { beforeAll, describe, expect, it } from "vitest";
import { db } from "./support/client";
import { api, newTeam, type TestTeam } from "./support/gateway";

let team: TestTeam;
const V = "/2025-07-01";
const CODE = 'addHandler("transform", (req) => { req.headers["x-added"] = process.env.TAG; console.log("ran"); return req; });';
beforeAll(async () => {
  team = await newTeam("transformations");
});

describe("transformations CRUD", () => {
  it("POST, GET, PUT, upsert, count, DELETE; env encrypted at rest; 409 on a taken name", async () => {
    const created = await api(team, "POST", `${V}/transformations`, { name: "tagger", code: CODE, env: { TAG: "env-secret-9" } });
    expect(created.status).toBe(200);
    expect(created.json).toMatchObject({ id: expect.stringMatching(/^trs_/), name: "tagger", code: CODE, env: { TAG: "env-secret-9" } });
    const { rows } = await db().query("SELECT env_encrypted FROM transformations WHERE id = $1", [created.json.id]);
    expect(rows[0].env_encrypted).not.toContain("env-secret-9");
    expect((await api(team, "POST", `${V}/transformations`, { name: "tagger", code: CODE })).status).toBe(409);
    expect((await api(team, "PUT", `${V}/transformations/${created.json.id}`, { code: "addHandler('transform', r => r)" })).json.env).toEqual({ TAG: "env-secret-9" });
    expect((await api(team, "PUT", `${V}/transformations`, { name: "tagger", code: CODE })).json.id).toBe(created.json.id);
    expect((await api(team, "GET", `${V}/transformations/count?name=tagger`)).json).toEqual({ count: 1 });
    expect((await api(team, "GET", `${V}/transformations?name[contains]=tag`)).json.models.map((m: any) => m.id)).toEqual([created.json.id]);
    const other = await newTeam("other");
    expect((await api(other, "GET", `${V}/transformations/${created.json.id}`)).status).toBe(404);
    expect((await api(other, "GET", `${V}/transformations`)).json.models).toEqual([]);
    expect((await api(team, "DELETE", `${V}/transformations/${created.json.id}`)).json).toEqual({ id: created.json.id });
    expect((await api(team, "GET", `${V}/transformations/${created.json.id}`)).status).toBe(404);
  });

  it("POST /transformations – missing code → 422 naming code", async () => {
    const r = await api(team, "POST", `${V}/transformations`, { name: "nocode" });
    expect(r.status).toBe(422);
    expect(r.json.data.field).toBe("code");
  });
});

describe("PUT /transformations/run", () => {
  it("runs code on a sample request: transformed request, console, log level", async () => {
    const r = await api(team, "PUT", `${V}/transformations/run`, { code: CODE, env: { TAG: "t" }, request: { headers: { a: "b" }, body: { n: 1 }, path: "/x", query: "q=1" } });
    expect(r.status).toBe(200);
    expect(r.json).toEqual({
      log_level: "info",
      request: { headers: { a: "b", "x-added": "t" }, body: { n: 1 }, path: "/x", query: "q=1", parsed_query: { q: "1" } },
      console: [{ type: "log", message: "ran" }],
    });
  });

  it("a saved transformation by id, with its env", async () => {
    const saved = (await api(team, "POST", `${V}/transformations`, { name: "saved", code: CODE, env: { TAG: "from-saved" } })).json;
    const r = await api(team, "PUT", `${V}/transformations/run`, { transformation_id: saved.id, request: { headers: {} } });
    expect(r.json.transformation_id).toBe(saved.id);
    expect(r.json.request.headers["x-added"]).toBe("from-saved");
  });

  it("code that throws → 200 with log_level fatal and the error in console (the product's shape)", async () => {
    const r = await api(team, "PUT", `${V}/transformations/run`, { code: 'const x = require("fs"); addHandler("transform", r => r)', request: { headers: {} } });
    expect(r.status).toBe(200);
    expect(r.json.log_level).toBe("fatal");
    expect(r.json.request).toBeUndefined();
    expect(r.json.console.at(-1).type).toBe("error");
    expect(r.json.console.at(-1).message).toContain("ReferenceError");
  });

  it("neither code nor transformation_id → 422; an unknown transformation_id → 422", async () => {
    expect((await api(team, "PUT", `${V}/transformations/run`, { request: { headers: {} } })).status).toBe(422);
    const r = await api(team, "PUT", `${V}/transformations/run`, { transformation_id: "trs_nope" });
    expect(r.status).toBe(422);
    expect(r.json.data.field).toBe("transformation_id");
  });
});
