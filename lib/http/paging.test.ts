/**
 * Paging parameters of every gateway list (docs/gateway-api.md#lists-and-paging): defaults, limits, allowed
 * sort keys, and cursors that must come back with the order they belong to.
 */
import { describe, expect, it } from "vitest";
import { AppError } from "@/lib/http/errors";
import { parsePaging } from "@/lib/http/paging";
import { parseQuery } from "@/lib/http/query";

const ORDER = ["created_at", "updated_at", "name"] as const;
const q = (s: string) => parseQuery(new URLSearchParams(s));
const cursor = (payload: unknown) => Buffer.from(JSON.stringify(payload)).toString("base64url");

function badRequest(fn: () => unknown): AppError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).status).toBe(400);
    expect((err as AppError).code).toBe("BAD_REQUEST");
    return err as AppError;
  }
  throw new Error("expected a 400 AppError, nothing was thrown");
}

describe("parsePaging", () => {
  it("parsePaging – defaults: created_at desc, limit 100, no cursor", () => {
    expect(parsePaging(q(""), ORDER)).toEqual({ orderBy: "created_at", dir: "desc", limit: 100 });
  });

  it("parsePaging – order_by, dir and limit are read; 0 and 250 are valid limits", () => {
    expect(parsePaging(q("order_by=name&dir=asc&limit=250"), ORDER)).toEqual({ orderBy: "name", dir: "asc", limit: 250 });
    expect(parsePaging(q("limit=0"), ORDER).limit).toBe(0);
  });

  it("parsePaging – a cursor with the order it belongs to → next/prev cursor with its value and id", () => {
    const c = cursor({ o: "name", d: "asc", v: "beta", i: "src_1" });
    expect(parsePaging(q(`order_by=name&dir=asc&next=${c}`), ORDER).cursor).toEqual({ direction: "next", value: "beta", id: "src_1" });
    expect(parsePaging(q(`order_by=name&dir=asc&prev=${c}`), ORDER).cursor).toEqual({ direction: "prev", value: "beta", id: "src_1" });
    const d = cursor({ o: "created_at", d: "desc", v: "2024-01-01T00:00:00.000Z", i: "src_2" });
    expect(parsePaging(q(`next=${d}`), ORDER).cursor).toEqual({ direction: "next", value: "2024-01-01T00:00:00.000Z", id: "src_2" });
  });

  it.each([
    ["limit=251", "limit"],
    ["limit=-1", "limit"],
    ["limit=2.5", "limit"],
    ["limit=ten", "limit"],
    ["limit[]=5", "limit"],
    ["order_by=url", "order_by"],
    ["order_by=id;DROP TABLE sources", "order_by"],
    ["order_by[0]=name&order_by[1]=created_at", "order_by"],
    ["dir=up", "dir"],
    ["dir=ASC", "dir"],
    ["next=a&prev=b", "next"],
    ["next=not-a-cursor", "cursor"],
    [`next=${cursor(null)}`, "cursor"],
    [`next=${cursor({ o: "name", d: "asc" })}`, "cursor"],
    [`next=${cursor({ o: "name", d: "sideways", v: "a", i: "b" })}`, "cursor"],
    [`next=${cursor({ o: "name", d: "asc", v: "a", i: "src_1" })}`, "order_by"],
    [`order_by=name&next=${cursor({ o: "name", d: "asc", v: "a", i: "src_1" })}`, "dir"],
    [`order_by=name&dir=asc&prev=${cursor({ o: "created_at", d: "asc", v: "a", i: "src_1" })}`, "order_by"],
  ])("parsePaging – %s → 400 (mentions %s)", (query, word) => {
    const err = badRequest(() => parsePaging(q(query), ORDER));
    expect(err.message.toLowerCase()).toContain(word === "next" ? "next" : word);
  });
});
