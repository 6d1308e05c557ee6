/** Smaller contract points of the gateway API: 405 bodies, empty `limit=`, auth key naming in 422s. */
import { beforeAll, describe, expect, it } from "vitest";
import { api, newTeam, type TestTeam } from "./support/gateway";

let team: TestTeam;
beforeAll(async () => {
  team = await newTeam("details");
});

describe("gateway details", () => {
  it("a method an endpoint does not have answers 405 with the gateway error body, after authentication", async () => {
    const res = await api(team, "DELETE", "/2025-07-01/sources");
    expect(res.status).toBe(405);
    expect(res.json).toMatchObject({ handled: true, status: 405, code: "METHOD_NOT_ALLOWED" });
    expect(res.headers.get("x-ratelimit-limit")).toBe("240");
    expect((await api(team, "PATCH", "/2025-07-01/events")).status).toBe(405);
    expect((await api(null, "DELETE", "/2025-07-01/sources")).status).toBe(401);
  });

  it("an empty limit= means the default page size", async () => {
    const res = await api(team, "GET", "/2025-07-01/sources?limit=");
    expect(res.status).toBe(200);
    expect(res.json.pagination.limit).toBe(100);
  });

  it("an unknown key in config.auth is named in the 422", async () => {
    const res = await api(team, "POST", "/2025-07-01/sources", {
      name: `hmac-${Date.now()}`,
      config: { auth_type: "API_KEY", auth: { header_key: "x-key", api_key: "k", extra: 1 } },
    });
    expect(res.status).toBe(422);
    expect(res.json.data.field).toBe("config.auth.extra");
  });
});
