/**
 * The filter of a replay from the archive (docs/gateway-api.md "Replay from the archive"): `created_at` bounds
 * (inclusive and exclusive operators), `source_id`, and a 422 naming the field for everything else.
 */
import { expect, it } from "vitest";
import { parseArchiveFilter } from "@/lib/gateway/bulk/archive-replay";
import { AppError } from "@/lib/http/errors";

const T = "2026-10-17T00:00:00.000Z";
const ms = Date.parse(T);

function fieldOf(query: Record<string, unknown>): unknown {
  try {
    parseArchiveFilter(query);
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).status).toBe(422);
    return (err as AppError).data.field;
  }
  return "accepted";
}

it("reads gte/gt and lte/lt as a half-open range, and source_id as one id or a list", () => {
  expect(parseArchiveFilter({ created_at: { gte: T, lt: "2026-10-18T00:00:00Z" } })).toEqual({ from: ms, to: ms + 86_400_000, sourceIds: null });
  expect(parseArchiveFilter({ created_at: { gt: T, lte: T.replace("00:00:00", "01:00:00") }, source_id: "src_a" })).toEqual({
    from: ms + 1,
    to: ms + 3_600_001,
    sourceIds: ["src_a"],
  });
  expect(parseArchiveFilter({ created_at: { gte: T, lt: "2026-10-18" }, source_id: ["src_a", "src_b"], target: {} }).sourceIds).toEqual(["src_a", "src_b"]);
});

it("names the field of a bad query in a 422", () => {
  expect(fieldOf({})).toBe("query.created_at");
  expect(fieldOf({ created_at: "2026-10-17" })).toBe("query.created_at");
  expect(fieldOf({ created_at: { gte: T } })).toBe("query.created_at");
  expect(fieldOf({ created_at: { lt: T } })).toBe("query.created_at");
  expect(fieldOf({ created_at: { gte: "yesterday", lt: T } })).toBe("query.created_at.gte");
  expect(fieldOf({ created_at: { gte: T, lt: 5 } })).toBe("query.created_at.lt");
  expect(fieldOf({ created_at: { gte: T, lt: T, eq: T } })).toBe("query.created_at.eq");
  expect(fieldOf({ created_at: { gte: T, lt: T } })).toBe("query.created_at");
  expect(fieldOf({ created_at: { gte: "2025-01-01", lt: "2026-10-17" } })).toBe("query.created_at");
  expect(fieldOf({ created_at: { gte: T, lt: "2026-10-18" }, source_id: [] })).toBe("query.source_id");
  expect(fieldOf({ created_at: { gte: T, lt: "2026-10-18" }, source_id: 3 })).toBe("query.source_id");
  expect(fieldOf({ created_at: { gte: T, lt: "2026-10-18" }, source_id: "src_a" })).toBe("accepted");
});
