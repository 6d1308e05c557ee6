/**
 * The one cursor codec (lib/http/cursor.ts): the strings each surface hands out are pinned, byte for
 * byte, so cursors given to clients before keep working; anything that is not a cursor decodes to null
 * (the gateway's and the outbound service's 400s are checked in lib/http/paging.test.ts,
 * lib/http/input-safety.test.ts and e2e/input-errors.test.ts).
 */
import { describe, expect, it } from "vitest";
import { decodeCursor, encodeCursor } from "@/lib/http/cursor";
import { parsePaging } from "@/lib/http/paging";
import { parseQuery } from "@/lib/http/query";
import { decodeCursor as decodeOutbound, encodeCursor as encodeOutbound } from "@/lib/outbound/params";

// Cursors as the gateway and the outbound service wrote them before the codec was shared.
const GATEWAY_CURSOR = "eyJvIjoiY3JlYXRlZF9hdCIsImQiOiJkZXNjIiwidiI6IjIwMjYtMDEtMzFUMTI6MDA6MDAuMDAwWiIsImkiOiJzcmNfYWJjIn0";
const OUTBOUND_CURSOR = "eyJ0IjoiMjAyNi0wMS0zMVQxMjowMDowMC4wMDBaIiwiaSI6ImV2dF8xIn0";

describe("cursor codec", () => {
  it("encodes base64url JSON with the keys in the order given (the wire format of both surfaces)", () => {
    expect(encodeCursor({ o: "created_at", d: "desc", v: "2026-01-31T12:00:00.000Z", i: "src_abc" })).toBe(GATEWAY_CURSOR);
    expect(encodeOutbound(new Date("2026-01-31T12:00:00.000Z"), "evt_1")).toBe(OUTBOUND_CURSOR);
  });

  it("decodes the cursors handed out before", () => {
    expect(decodeCursor(GATEWAY_CURSOR)).toEqual({ o: "created_at", d: "desc", v: "2026-01-31T12:00:00.000Z", i: "src_abc" });
    expect(parsePaging(parseQuery(new URLSearchParams(`next=${GATEWAY_CURSOR}`)), ["created_at"]).cursor).toEqual({
      direction: "next",
      value: "2026-01-31T12:00:00.000Z",
      id: "src_abc",
    });
    expect(decodeOutbound(OUTBOUND_CURSOR)).toEqual({ time: new Date("2026-01-31T12:00:00.000Z"), id: "evt_1" });
  });

  it("decodes anything that is not base64url of a JSON object to null", () => {
    const b64 = (s: string) => Buffer.from(s).toString("base64url");
    for (const raw of ["", "%FF", "AAAA", b64("null"), b64("5"), b64('"text"'), b64("{not json")]) expect(decodeCursor(raw), raw).toBeNull();
    expect(decodeCursor(b64("[]"))).toEqual([]);
  });
});
