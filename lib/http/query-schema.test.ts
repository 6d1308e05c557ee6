/**
 * Filter tables (lib/http/query-schema.ts): the zod forms each filter type takes, the 400 that names
 * the parameter, the SQL they build (with value mapping), and the OpenAPI parameters.
 */
import { describe, expect, it } from "vitest";
import { AppError } from "@/lib/http/errors";
import { parseQuery } from "@/lib/http/query";
import {
  applyFilterTable,
  booleanFilter,
  dateFilter,
  enumFilter,
  filterParameters,
  flagParameter,
  filterSchema,
  numberFilter,
  pathId,
  stringFilter,
  validateFilters,
} from "@/lib/http/query-schema";

const TABLE = {
  id: stringFilter("t.id", "Id."),
  status: enumFilter("t.status", ["SUCCESFUL", "SUCCESSFUL", "FAILED"], "Status.", (v) => (v === "SUCCESFUL" ? "SUCCESSFUL" : v)),
  attempts: numberFilter("t.attempts", "Attempts."),
  created_at: dateFilter("t.created_at", "Created."),
};
const q = (s: string) => parseQuery(new URLSearchParams(s));

function error(s: string): AppError {
  try {
    validateFilters(TABLE, q(s));
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    return err as AppError;
  }
  throw new Error(`expected a 400 for ${s}`);
}

describe("validateFilters", () => {
  it("accepts values, arrays and the operators of each type; ignores other parameters", () => {
    for (const s of [
      "id=evt_1",
      "id[]=a&id[]=b",
      "id=a&id=b",
      "id[contains]=x&id[any]=true",
      "status=SUCCESFUL",
      "status[0]=FAILED&status[1]=SUCCESSFUL",
      "attempts=3",
      "attempts[]=1&attempts[]=2",
      "attempts[gte]=1&attempts[lt]=10&attempts[any]=1",
      "created_at=2026-01-01",
      "created_at[gte]=2026-01-01T10:00:00Z&created_at[lte]=2026-01-02",
      "limit=5&order_by=x&unknown[deep]=1",
    ])
      expect(() => validateFilters(TABLE, q(s)), s).not.toThrow();
  });

  it("refuses wrong values with a 400 naming the parameter (and the operator)", () => {
    const cases: [string, string][] = [
      ["status=SUCCESS", "status"],
      ["status[]=FAILED&status[]=X", "status.1"],
      ["attempts=1.5", "attempts"],
      ["attempts=99999999999", "attempts"],
      ["attempts[gte]=x", "attempts.gte"],
      ["attempts[contains]=1", "attempts"],
      ["created_at=2026-02-30", "created_at"],
      ["created_at[]=2026-01-01", "created_at"],
      ["created_at[any]=maybe", "created_at.any"],
      ["id[gte]=a", "id"],
      ["id=", "id"],
      ["id=a%00b", "id"],
      ["id[a][b]=1", "id"],
    ];
    for (const [s, field] of cases) {
      const err = error(s);
      expect(err.status, s).toBe(400);
      expect(err.code, s).toBe("BAD_REQUEST");
      expect(err.data.field, s).toBe(field);
    }
  });
});

describe("applyFilterTable", () => {
  it("builds the WHERE clauses with parameters, mapping values (SUCCESFUL → SUCCESSFUL)", () => {
    const where: string[] = [];
    const params: unknown[] = ["team"];
    applyFilterTable(TABLE, q("status[]=SUCCESFUL&status[]=FAILED&attempts[gte]=2&id=evt_1&created_at[any]=false"), where, params);
    expect(where).toEqual(["t.id = $2", "t.status = ANY($3)", "t.attempts >= $4", "t.created_at IS NULL"]);
    expect(params).toEqual(["team", "evt_1", ["SUCCESSFUL", "FAILED"], 2]);
  });
});

describe("booleanFilter and flagParameter", () => {
  const FLAGS = { verified: booleanFilter("t.verified", "Verified."), disabled: flagParameter("Include disabled.") };

  it("a boolean filter compares true/false (1/0) and takes {any}; a flag is validated but adds no clause", () => {
    const where: string[] = [];
    const params: unknown[] = [];
    applyFilterTable(FLAGS, q("verified=1&disabled=true"), where, params);
    expect(where).toEqual(["t.verified = $1"]);
    expect(params).toEqual([true]);
    const any: string[] = [];
    applyFilterTable(FLAGS, q("verified[any]=false"), any, []);
    expect(any).toEqual(["t.verified IS NULL"]);
  });

  it("refuses other spellings, arrays and operators with a 400 naming the parameter", () => {
    for (const [s, field] of [
      ["verified=yes", "verified"],
      ["verified[]=true", "verified"],
      ["verified[gte]=true", "verified"],
      ["disabled=maybe", "disabled"],
      ["disabled[any]=true", "disabled"],
    ] as const) {
      try {
        applyFilterTable(FLAGS, q(s), [], []);
        throw new Error(`expected a 400 for ${s}`);
      } catch (err) {
        expect(err, s).toBeInstanceOf(AppError);
        expect((err as AppError).data.field, s).toBe(field);
      }
    }
  });
});

describe("filterSchema and filterParameters", () => {
  it("the zod object and the OpenAPI parameters list every filter with its forms", () => {
    expect(Object.keys(filterSchema(TABLE).shape)).toEqual(["id", "status", "attempts", "created_at"]);
    const params = filterParameters(TABLE);
    expect(params.map((p) => p.name)).toEqual(["id", "status", "attempts", "created_at"]);
    expect(params[0]).toMatchObject({ description: "Id.", style: "deepObject", explode: true });
    expect((params[1].schema.anyOf as { enum?: string[] }[])[0].enum).toEqual(["SUCCESFUL", "SUCCESSFUL", "FAILED"]);
    expect((params[3].schema.anyOf as unknown[]).length).toBe(2);
  });
});

describe("pathId", () => {
  it("passes ids through and answers 404 for what cannot be an id", () => {
    expect(pathId("evt_1")).toBe("evt_1");
    for (const bad of ["", "a\u0000b", "a b", "x".repeat(256)]) expect(() => pathId(bad)).toThrow(expect.objectContaining({ status: 404 }));
  });
});
