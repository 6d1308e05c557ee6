import { describe, expect, it } from "vitest";
import { isRecordError } from "@/lib/gateway/pipeline/fanout";

const pgError = (code: string) => Object.assign(new Error(`pg ${code}`), { code });

describe("isRecordError", () => {
  it("isolates what PostgreSQL refuses in the records, and retries the batch whole when the database is away", () => {
    // NUL in text, lone surrogate in jsonb, a constraint, JSON nested too deep, an undefined column: record errors.
    for (const code of ["22021", "22P05", "23503", "54001", "42703"]) expect(isRecordError(pgError(code)), code).toBe(true);
    expect(isRecordError(new RangeError("Maximum call stack size exceeded"))).toBe(true);
    // A lost connection, a shutdown, a deadlock, a lock timeout, a cancelled statement, out of memory: not.
    for (const code of ["08006", "57P01", "40P01", "55P03", "57014", "53200", "XX000"]) expect(isRecordError(pgError(code)), code).toBe(false);
    expect(isRecordError(new Error("Connection terminated unexpectedly"))).toBe(false);
    expect(isRecordError(Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" }))).toBe(false);
    expect(isRecordError(null)).toBe(false);
  });
});
