/**
 * `bytea[]` parameters in binary form (lib/db/binary-params.ts): what goes in comes back byte for byte (every
 * byte value, empty and NULL elements, the empty array), and the parameter is the raw bytes plus 4 per element
 * (pg's text form would be twice the bytes plus escapes). Runs on the test database (`npm test` sets DATABASE_URL).
 */
import { expect, it } from "vitest";
import { byteaArrayParam } from "@/lib/db/binary-params";
import { getBackgroundPool } from "@/lib/db/pool";

it("round-trips every byte value, empty and NULL elements through a bytea[] parameter", async () => {
  const all = Buffer.from(Array.from({ length: 256 }, (_, n) => n));
  const items = [all, null, Buffer.alloc(0), Buffer.from('{"a":"\\u0000"}'), all.subarray(250)];
  const param = byteaArrayParam(items);
  expect(param.length).toBe(20 + items.reduce((n, i) => n + 4 + (i?.length ?? 0), 0));
  const { rows } = await getBackgroundPool().query<{ b: Buffer | null; n: number }>(
    "SELECT b, n::int FROM unnest($1::bytea[]) WITH ORDINALITY AS t(b, n) ORDER BY n",
    [param],
  );
  expect(rows.map((r) => (r.b === null ? null : r.b.toString("hex")))).toEqual(items.map((i) => (i === null ? null : i.toString("hex"))));
});

it("gives the empty array for no items", async () => {
  const { rows } = await getBackgroundPool().query<{ n: number }>("SELECT cardinality($1::bytea[])::int AS n", [byteaArrayParam([])]);
  expect(rows[0].n).toBe(0);
});
