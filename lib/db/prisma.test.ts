import { describe, expect, it } from "vitest";
import { closePool } from "@/lib/db/pool";
import { getPrisma } from "@/lib/db/prisma";

describe("getPrisma", () => {
  it("follows the shared pool: after closePool() the next client runs on the new pool", async () => {
    const first = getPrisma();
    expect(await first.$queryRawUnsafe<{ one: number }[]>("SELECT 1 AS one")).toEqual([{ one: 1 }]);
    expect(getPrisma()).toBe(first);
    await closePool();
    const second = getPrisma();
    expect(second).not.toBe(first);
    expect(await second.$queryRawUnsafe<{ one: number }[]>("SELECT 2 AS one")).toEqual([{ one: 2 }]);
    await closePool();
  });
});
