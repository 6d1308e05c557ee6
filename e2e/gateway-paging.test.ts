/**
 * Keyset paging of the gateway lists, through `/sources` (docs/gateway-api.md#lists-and-paging):
 * defaults, more than two pages both ways in non-default orders, cursors that need their order
 * repeated, and 400s (never 500s) for bad paging parameters.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { api, newTeam, type TestTeam } from "./support/gateway";

const V = "/2025-07-01";
let team: TestTeam;
// Lower-case, distinct first letters: name order is the same in every collation; created in this (unsorted) order.
const NAMES = ["kilo", "alpha", "hotel", "echo", "lima", "bravo", "juliet", "charlie", "golf", "delta", "india", "foxtrot"];
const SORTED = [...NAMES].sort();

type Model = { id: string; name: string; created_at: string; updated_at: string; type: string };
type Page = { pagination: { order_by: string; dir: string; limit: number; next?: string; prev?: string }; count: number; models: Model[] };

async function page(query: string, t: TestTeam = team, version = V): Promise<Page> {
  const r = await api(t, "GET", `${version}/sources?${query}`);
  if (r.status !== 200) throw new Error(`GET /sources?${query} → ${r.status} ${JSON.stringify(r.json)}`);
  expect(r.json.count).toBe(r.json.models.length);
  return r.json;
}
const names = (p: Page) => p.models.map((m) => m.name);

/** Walks forward with `next` from the first page, then back with `prev`; returns the pages of each walk. */
async function walk(query: string, t: TestTeam = team) {
  const forward: Page[] = [await page(query, t)];
  while (forward.at(-1)!.pagination.next) {
    forward.push(await page(`${query}&next=${forward.at(-1)!.pagination.next}`, t));
    if (forward.length > 20) throw new Error("no end");
  }
  const backward: Page[] = [forward.at(-1)!];
  while (backward.at(-1)!.pagination.prev) {
    backward.push(await page(`${query}&prev=${backward.at(-1)!.pagination.prev}`, t));
    if (backward.length > 20) throw new Error("no start");
  }
  return { forward, backward: backward.reverse() };
}

beforeAll(async () => {
  team = await newTeam("paging");
  for (const name of NAMES) {
    const r = await api(team, "POST", `${V}/sources`, { name, type: name < "f" ? "GITHUB" : "WEBHOOK" });
    expect(r.status).toBe(200);
  }
});

describe("paging – defaults", () => {
  it("GET /sources – default order created_at desc, limit 100; one page has no cursors", async () => {
    const p = await page("");
    expect(p.pagination).toEqual({ order_by: "created_at", dir: "desc", limit: 100 });
    expect(p.count).toBe(12);
    expect(names(p).sort()).toEqual(SORTED);
    for (let i = 1; i < p.models.length; i++) {
      const [a, b] = [p.models[i - 1], p.models[i]];
      expect(a.created_at > b.created_at || (a.created_at === b.created_at && a.id > b.id)).toBe(true);
    }
    // Created one after the other: newest first is the creation order reversed.
    expect(names(p)).toEqual([...NAMES].reverse());
  });

  it("GET /sources – created_at desc pages need no repeated order_by: limit=5 gives 5, 5, 2 with no gap or duplicate", async () => {
    const all = names(await page(""));
    const { forward, backward } = await walk("limit=5");
    expect(forward.map((p) => p.count)).toEqual([5, 5, 2]);
    expect(forward.flatMap(names)).toEqual(all);
    expect(backward.map(names)).toEqual(forward.map(names));
    expect(forward[0].pagination).toMatchObject({ order_by: "created_at", dir: "desc", limit: 5 });
  });
});

describe("paging – non-default orders, both ways", () => {
  it("GET /sources – name asc, limit=5: three pages with next, back with prev; no duplicates, no gaps", async () => {
    const q = "order_by=name&dir=asc&limit=5";
    const p1 = await page(q);
    expect(p1.pagination.order_by).toBe("name");
    expect(p1.pagination.dir).toBe("asc");
    expect(p1.pagination.limit).toBe(5);
    expect(names(p1)).toEqual(SORTED.slice(0, 5));
    expect(p1.pagination.prev).toBeUndefined();
    expect(typeof p1.pagination.next).toBe("string");
    const p2 = await page(`${q}&next=${p1.pagination.next}`);
    expect(names(p2)).toEqual(SORTED.slice(5, 10));
    expect(p2.pagination.next).toBeDefined();
    expect(p2.pagination.prev).toBeDefined();
    const p3 = await page(`${q}&next=${p2.pagination.next}`);
    expect(names(p3)).toEqual(SORTED.slice(10));
    expect(p3.count).toBe(2);
    expect(p3.pagination.next).toBeUndefined();
    expect(p3.pagination.prev).toBeDefined();
    const back2 = await page(`${q}&prev=${p3.pagination.prev}`);
    expect(names(back2)).toEqual(SORTED.slice(5, 10));
    const back1 = await page(`${q}&prev=${back2.pagination.prev}`);
    expect(names(back1)).toEqual(SORTED.slice(0, 5));
    expect(back1.pagination.prev).toBeUndefined();
    expect(back1.pagination.next).toBeDefined();
    // And forward again from the page reached backwards.
    expect(names(await page(`${q}&next=${back1.pagination.next}`))).toEqual(SORTED.slice(5, 10));
  });

  it.each([
    ["name desc", "order_by=name&dir=desc&limit=5", [...SORTED].reverse(), [5, 5, 2]],
    ["name asc, limit 4 (exact pages)", "order_by=name&dir=asc&limit=4", SORTED, [4, 4, 4]],
    ["created_at asc", "order_by=created_at&dir=asc&limit=5", NAMES, [5, 5, 2]],
    ["updated_at asc", "order_by=updated_at&dir=asc&limit=3", NAMES, [3, 3, 3, 3]],
    ["name asc, limit 1", "order_by=name&dir=asc&limit=1", SORTED, Array(12).fill(1)],
  ])("GET /sources – %s: forward with next and back with prev cover every source once", async (_label, q, expected, sizes) => {
    const { forward, backward } = await walk(q);
    expect(forward.map((p) => p.count)).toEqual(sizes);
    expect(forward.flatMap(names)).toEqual(expected);
    expect(backward.map(names)).toEqual(forward.map(names));
    expect(forward[0].pagination.prev).toBeUndefined();
    expect(forward.at(-1)!.pagination.next).toBeUndefined();
  });

  it("GET /sources – paging keeps the filters (type=GITHUB, name asc, limit 2)", async () => {
    const { forward, backward } = await walk("type=GITHUB&order_by=name&dir=asc&limit=2");
    expect(forward.flatMap(names)).toEqual(["alpha", "bravo", "charlie", "delta", "echo"]);
    expect(forward.map((p) => p.count)).toEqual([2, 2, 1]);
    expect(backward.map(names)).toEqual(forward.map(names));
  });

  it("2024-09-01 – pages the same way in the flat shape", async () => {
    const first = await page("order_by=name&dir=asc&limit=5", team, "/2024-09-01");
    const second = await page(`order_by=name&dir=asc&limit=5&next=${first.pagination.next}`, team, "/2024-09-01");
    expect([...names(first), ...names(second)]).toEqual(SORTED.slice(0, 10));
    expect((second.models[0] as any).allowed_http_methods).toBeDefined();
  });

  it("GET /sources – a cursor stays valid after its row is deleted (keyset, not offset)", async () => {
    const t = await newTeam("paging-delete");
    for (const name of ["a1", "a2", "a3", "a4", "a5", "a6"]) await api(t, "POST", `${V}/sources`, { name });
    const q = "order_by=name&dir=asc&limit=3";
    const p1 = await page(q, t);
    expect(names(p1)).toEqual(["a1", "a2", "a3"]);
    await api(t, "DELETE", `${V}/sources/${p1.models[2].id}`);
    await api(t, "DELETE", `${V}/sources/${p1.models[1].id}`);
    const p2 = await page(`${q}&next=${p1.pagination.next}`, t);
    expect(names(p2)).toEqual(["a4", "a5", "a6"]);
    expect(names(await page(`${q}&prev=${p2.pagination.prev}`, t))).toEqual(["a1"]);
  });

  it("GET /sources – limit=250 is allowed; limit=0 returns no models", async () => {
    expect((await page("limit=250")).count).toBe(12);
    const empty = await page("limit=0");
    expect(empty.models).toEqual([]);
    expect(empty.pagination.limit).toBe(0);
  });
});

describe("paging – refused parameters → 400, not 500", () => {
  const nameCursor = async () => (await page("order_by=name&dir=asc&limit=5")).pagination.next!;
  const dateCursor = (payload: unknown) => Buffer.from(JSON.stringify(payload)).toString("base64url");

  it.each([
    ["a name asc cursor without its order", async () => `limit=5&next=${await nameCursor()}`],
    ["a name asc cursor with order_by but without dir", async () => `order_by=name&limit=5&next=${await nameCursor()}`],
    ["a name asc cursor with dir=desc", async () => `order_by=name&dir=desc&limit=5&next=${await nameCursor()}`],
    ["a name asc cursor under order_by=created_at&dir=asc", async () => `order_by=created_at&dir=asc&prev=${await nameCursor()}`],
    ["a damaged cursor", () => "next=not-a-cursor"],
    ["a damaged prev cursor", () => "prev=%7B%7D"],
    ["a truncated cursor", async () => `order_by=name&dir=asc&next=${(await nameCursor()).slice(0, 10)}`],
    ["a cursor with a non-date created_at value", () => `next=${dateCursor({ o: "created_at", d: "desc", v: "yesterday", i: "src_x" })}`],
    ["a cursor of the wrong JSON shape", () => `next=${dateCursor({ o: "created_at", d: "desc", v: 5, i: "src_x" })}`],
    ["limit over 250", () => "limit=251"],
    ["limit 1000", () => "limit=1000"],
    ["a negative limit", () => "limit=-1"],
    ["a fractional limit", () => "limit=2.5"],
    ["a non-numeric limit", () => "limit=many"],
    ["an unknown order_by", () => "order_by=url"],
    ["an SQL order_by", () => `order_by=${encodeURIComponent("name; DROP TABLE sources")}`],
    ["an unknown dir", () => "dir=up"],
    ["next and prev together", () => "next=a&prev=b"],
  ])("GET /sources – %s → 400 BAD_REQUEST", async (_label, query) => {
    const q = await query();
    for (const path of [`${V}/sources?${q}`, `/2024-09-01/sources?${q}`]) {
      const { status, json } = await api(team, "GET", path);
      expect(status).toBe(400);
      expect(json).toMatchObject({ handled: true, status: 400, code: "BAD_REQUEST" });
      expect(typeof json.message).toBe("string");
    }
  });

  it("GET /sources – the list still answers after the refused parameters", async () => {
    expect((await page("")).count).toBe(12);
  });
});
