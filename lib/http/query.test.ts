/**
 * Query formatting of the gateway API (docs/gateway-api.md#lists-and-paging): arrays, operators
 * by type, dates, JSON parameters, and the SQL each filter turns into.
 */
import { describe, expect, it } from "vitest";
import { AppError } from "@/lib/http/errors";
import { filterSql, parseDate, parseFilter, parseJsonParam, parseQuery } from "@/lib/http/query";

const q = (s: string) => parseQuery(new URLSearchParams(s));

/** The AppError `fn` throws (fails when it throws nothing or something else). */
function thrown(fn: () => unknown): AppError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    return err as AppError;
  }
  throw new Error("expected a AppError, nothing was thrown");
}

describe("parseQuery", () => {
  it("parseQuery – a plain key is a string", () => {
    expect(q("name=alpha&limit=5")).toEqual({ name: "alpha", limit: "5" });
  });

  it("parseQuery – item[1]=a&item[2]=b is an array of two strings, in index order", () => {
    expect(q("item[1]=a&item[2]=b")).toEqual({ item: ["a", "b"] });
    expect(q("item[2]=b&item[1]=a")).toEqual({ item: ["a", "b"] });
    expect(q("item[10]=c&item[2]=b&item[0]=a")).toEqual({ item: ["a", "b", "c"] });
  });

  it("parseQuery – item[]=a (once or repeated) is an array", () => {
    expect(q("item[]=a")).toEqual({ item: ["a"] });
    expect(q("item[]=a&item[]=b")).toEqual({ item: ["a", "b"] });
  });

  it("parseQuery – a repeated plain key is an array", () => {
    expect(q("item=a&item=b")).toEqual({ item: ["a", "b"] });
    expect(q("item=a&item=b&item=c")).toEqual({ item: ["a", "b", "c"] });
  });

  it("parseQuery – operators in brackets are an object; percent-encoded brackets parse the same", () => {
    expect(q("number[gte]=1&number[lte]=10")).toEqual({ number: { gte: "1", lte: "10" } });
    expect(q("created_at%5Bgte%5D=2024-01-01")).toEqual({ created_at: { gte: "2024-01-01" } });
  });

  it("parseQuery – nested objects (filters[webhook_id]=…, query[status]=…)", () => {
    expect(q("query[status]=FAILED&query[source_id][0]=src_a&query[source_id][1]=src_b")).toEqual({
      query: { status: "FAILED", source_id: ["src_a", "src_b"] },
    });
  });

  it("parseQuery – values keep their encoded characters decoded (spaces, &, =)", () => {
    expect(q("name=a%20b%26c%3Dd")).toEqual({ name: "a b&c=d" });
  });
});

describe("parseFilter", () => {
  it("parseFilter – absent parameter → undefined", () => {
    expect(parseFilter(q(""), "name", "string")).toBeUndefined();
  });

  it("parseFilter – one value and arrays are equality", () => {
    expect(parseFilter(q("name=a"), "name", "string")).toEqual({ kind: "eq", values: ["a"] });
    expect(parseFilter(q("name[0]=a&name[1]=b"), "name", "string")).toEqual({ kind: "eq", values: ["a", "b"] });
    expect(parseFilter(q("n[]=1&n[]=2.5"), "n", "number")).toEqual({ kind: "eq", values: [1, 2.5] });
  });

  it("parseFilter – gte gt lte lt on numbers", () => {
    expect(parseFilter(q("n[gte]=1&n[gt]=2&n[lte]=10&n[lt]=11"), "n", "number")).toEqual({ kind: "ops", gte: 1, gt: 2, lte: 10, lt: 11 });
  });

  it("parseFilter – gte gt lte lt on dates, date-only (UTC midnight) and full ISO", () => {
    const f = parseFilter(q("d[gte]=2024-01-02&d[lt]=2024-03-04T05:06:07.891Z&d[gt]=2024-01-01T00:00:00%2B02:00&d[lte]=2024-12-31T23:59:59Z"), "d", "date");
    expect(f).toEqual({
      kind: "ops",
      gte: new Date("2024-01-02T00:00:00.000Z"),
      lt: new Date("2024-03-04T05:06:07.891Z"),
      gt: new Date("2023-12-31T22:00:00.000Z"),
      lte: new Date("2024-12-31T23:59:59.000Z"),
    });
  });

  it("parseFilter – any on date, number and string (true = not null, false = null)", () => {
    expect(parseFilter(q("d[any]=true"), "d", "date")).toEqual({ kind: "ops", any: true });
    expect(parseFilter(q("n[any]=false"), "n", "number")).toEqual({ kind: "ops", any: false });
    expect(parseFilter(q("s[any]=true"), "s", "string")).toEqual({ kind: "ops", any: true });
  });

  it("parseFilter – contains on strings", () => {
    expect(parseFilter(q("s[contains]=abc"), "s", "string")).toEqual({ kind: "ops", contains: "abc" });
  });

  it.each([
    ["contains on a number", "n[contains]=1", "n", "number"],
    ["contains on a date", "d[contains]=2024", "d", "date"],
    ["gte on a string", "s[gte]=a", "s", "string"],
    ["lt on a string", "s[lt]=a", "s", "string"],
    ["an unknown operator", "n[between]=1", "n", "number"],
    ["the vendor's le (not in our spec)", "n[le]=1", "n", "number"],
    ["a non-numeric number", "n=abc", "n", "number"],
    ["an empty number", "n[gte]=", "n", "number"],
    ["a bad date", "d[gte]=yesterday", "d", "date"],
    ["an impossible month", "d[gte]=2024-13-01", "d", "date"],
    ["an impossible day (Feb 30)", "d[gte]=2024-02-30", "d", "date"],
    ["an impossible day in a full timestamp (Apr 31)", "d[lt]=2024-04-31T10:00:00Z", "d", "date"],
    ["an impossible hour", "d[gte]=2024-01-01T25:00:00Z", "d", "date"],
    ["a bad boolean for any", "d[any]=maybe", "d", "date"],
    ["a nested object as a value", "n[gte][x]=1", "n", "number"],
  ] as const)("parseFilter – %s → 400 BAD_REQUEST", (_label, query, name, type) => {
    const err = thrown(() => parseFilter(q(query), name, type));
    expect(err.status).toBe(400);
    expect(err.code).toBe("BAD_REQUEST");
    expect(err.message).toContain(name);
  });

  it("parseDate – leap day 2024-02-29 is valid, 2023-02-29 is not", () => {
    expect(parseDate("d", "2024-02-29").toISOString()).toBe("2024-02-29T00:00:00.000Z");
    expect(thrown(() => parseDate("d", "2023-02-29")).status).toBe(400);
  });
});

describe("filterSql", () => {
  it("filterSql – one value is =, several are = ANY, parameters appended after the existing ones", () => {
    const params: unknown[] = ["team"];
    expect(filterSql("s.name", { kind: "eq", values: ["a"] }, params)).toBe("s.name = $2");
    expect(filterSql("s.name", { kind: "eq", values: ["b", "c"] }, params)).toBe("s.name = ANY($3)");
    expect(params).toEqual(["team", "a", ["b", "c"]]);
  });

  it("filterSql – operators AND together; contains escapes LIKE wildcards; any false is IS NULL", () => {
    const params: unknown[] = [];
    const d = new Date("2024-01-01T00:00:00Z");
    expect(filterSql("x", { kind: "ops", gte: 1, gt: 2, lte: 3, lt: 4 }, params)).toBe("x >= $1 AND x > $2 AND x <= $3 AND x < $4");
    expect(filterSql("x", { kind: "ops", any: false }, params)).toBe("x IS NULL");
    expect(filterSql("x", { kind: "ops", any: true }, params)).toBe("x IS NOT NULL");
    expect(filterSql("x", { kind: "ops", contains: "50%_a\\b" }, params)).toBe("x ILIKE $5");
    expect(params.at(-1)).toBe("%50\\%\\_a\\\\b%");
    expect(filterSql("x", { kind: "ops", gte: d }, params)).toBe("x >= $6");
  });
});

describe("parseJsonParam", () => {
  it("parseJsonParam – URL-encoded JSON; nested objects pass through; bad JSON → 400", () => {
    expect(parseJsonParam(q(`query=${encodeURIComponent('{"status":"FAILED"}')}`), "query")).toEqual({ status: "FAILED" });
    expect(parseJsonParam(q("query[status]=FAILED"), "query")).toEqual({ status: "FAILED" });
    expect(parseJsonParam(q(""), "query")).toBeUndefined();
    expect(thrown(() => parseJsonParam(q("query={bad"), "query")).status).toBe(400);
  });
});
