/**
 * Keyset paging, query formatting and the per-key rate limit of the gateway API
 * (shared/spec/gateway.md "Paging", "Query formatting", "Limits").
 */
import { beforeAll, describe, expect, it } from "vitest";
import { api, newTeam, type TestTeam } from "./support/gateway";

let team: TestTeam;
const NAMES = Array.from({ length: 12 }, (_, i) => `src-${String.fromCharCode(97 + ((i * 7) % 12))}${i}`);

beforeAll(async () => {
  team = await newTeam("paging");
  for (const name of NAMES) await api(team, "POST", "/2025-07-01/sources", { name });
});

describe("paging", () => {
  it("GET /sources – default order created_at desc, limit 100, no cursors on a single page", async () => {
    const { json } = await api(team, "GET", "/2025-07-01/sources");
    expect(json.pagination).toEqual({ order_by: "created_at", dir: "desc", limit: 100 });
    expect(json.count).toBe(12);
    expect(json.models.map((m: any) => m.name)).toEqual([...NAMES].reverse());
  });

  it("GET /sources – three pages by name asc with next, and back with prev: no gaps, no duplicates", async () => {
    const sorted = [...NAMES].sort();
    const q = "order_by=name&dir=asc&limit=5";
    const p1 = (await api(team, "GET", `/2025-07-01/sources?${q}`)).json;
    expect(p1.models.map((m: any) => m.name)).toEqual(sorted.slice(0, 5));
    expect(p1.pagination.prev).toBeUndefined();
    const p2 = (await api(team, "GET", `/2025-07-01/sources?${q}&next=${p1.pagination.next}`)).json;
    expect(p2.models.map((m: any) => m.name)).toEqual(sorted.slice(5, 10));
    const p3 = (await api(team, "GET", `/2025-07-01/sources?${q}&next=${p2.pagination.next}`)).json;
    expect(p3.models.map((m: any) => m.name)).toEqual(sorted.slice(10));
    expect(p3.pagination.next).toBeUndefined();
    expect(p3.count).toBe(2);
    const back2 = (await api(team, "GET", `/2025-07-01/sources?${q}&prev=${p3.pagination.prev}`)).json;
    expect(back2.models.map((m: any) => m.name)).toEqual(sorted.slice(5, 10));
    const back1 = (await api(team, "GET", `/2025-07-01/sources?${q}&prev=${back2.pagination.prev}`)).json;
    expect(back1.models.map((m: any) => m.name)).toEqual(sorted.slice(0, 5));
    expect(back1.pagination.prev).toBeUndefined();
    expect(back1.pagination.next).toBeDefined();
  });

  it("GET /sources – created_at desc pages with the default order need no repeated order_by", async () => {
    const p1 = (await api(team, "GET", "/2025-07-01/sources?limit=7")).json;
    const p2 = (await api(team, "GET", `/2025-07-01/sources?limit=7&next=${p1.pagination.next}`)).json;
    expect([...p1.models, ...p2.models].map((m: any) => m.name)).toEqual([...NAMES].reverse());
  });

  it.each([
    ["a cursor without its non-default order", async () => `limit=5&next=${(await api(team, "GET", "/2025-07-01/sources?order_by=name&dir=asc&limit=5")).json.pagination.next}`],
    ["a damaged cursor", async () => "next=not-a-cursor"],
    ["limit over 250", async () => "limit=251"],
    ["a negative limit", async () => "limit=-1"],
    ["an unknown order_by", async () => "order_by=url"],
    ["an unknown dir", async () => "dir=up"],
    ["next and prev together", async () => "next=a&prev=b"],
  ])("GET /sources – %s → 400, not 500", async (_label, query) => {
    const { status, json } = await api(team, "GET", `/2025-07-01/sources?${await query()}`);
    expect(status).toBe(400);
    expect(json).toMatchObject({ handled: true, status: 400, code: "BAD_REQUEST" });
  });

  it("GET /sources – date operators on disabled_at (gte, lt, any)", async () => {
    const t = await newTeam("dates");
    const a = (await api(t, "POST", "/2025-07-01/sources", { name: "a" })).json;
    await api(t, "POST", "/2025-07-01/sources", { name: "b" });
    await api(t, "PUT", `/2025-07-01/sources/${a.id}/disable`);
    const names = async (q: string) => (await api(t, "GET", `/2025-07-01/sources?${q}`)).json.models.map((m: any) => m.name);
    expect(await names("disabled_at[any]=true")).toEqual(["a"]);
    expect(await names("disabled_at[gte]=2000-01-01")).toEqual(["a"]);
    expect(await names("disabled_at[lt]=2000-01-01T00:00:00Z")).toEqual([]);
    expect(await names("disabled=true&order_by=name&dir=asc")).toEqual(["a", "b"]);
  });
});

describe("rate limit", () => {
  it("240 requests per minute per key: each answer counts down, the 241st → 429 with Retry-After; another key is unaffected", async () => {
    // Fixed one-minute windows: start with enough of the minute left.
    const secondsLeft = 60 - new Date().getSeconds();
    if (secondsLeft < 20) await new Promise((r) => setTimeout(r, secondsLeft * 1000 + 200));
    const t = await newTeam("rate");
    const remaining: number[] = [];
    for (let batch = 0; batch < 8; batch++) {
      const answers = await Promise.all(Array.from({ length: 30 }, () => api(t, "GET", "/2025-07-01/sources/count")));
      for (const a of answers) {
        expect(a.status).toBe(200);
        expect(a.headers.get("x-ratelimit-limit")).toBe("240");
        remaining.push(Number(a.headers.get("x-ratelimit-remaining")));
      }
    }
    expect(remaining.sort((x, y) => x - y)).toEqual(Array.from({ length: 240 }, (_, i) => i));
    const limited = await api(t, "GET", "/2025-07-01/sources/count");
    expect(limited.status).toBe(429);
    expect(limited.json).toMatchObject({ handled: true, status: 429, code: "TOO_MANY_REQUESTS" });
    const retryAfter = Number(limited.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(limited.headers.get("x-ratelimit-remaining")).toBe("0");
    const reset = new Date(limited.headers.get("x-ratelimit-reset")!);
    expect(reset.getTime()).toBeGreaterThan(Date.now());
    expect(reset.getTime() - Date.now()).toBeLessThanOrEqual(60_000);
    expect((await api(team, "GET", "/2025-07-01/sources/count")).status).toBe(200);
  });
});
