import { describe, expect, it } from "vitest";
import { DestinationTypeRegistry, DuplicateDestinationTypeError, UnknownDestinationTypeError } from "@/lib/delivery/destination-types";

type Named = { type: string; n: number };

describe("DestinationTypeRegistry", () => {
  it("lists the registered types and their names in registration order", () => {
    const r = new DestinationTypeRegistry<Named>("test").register({ type: "b", n: 1 }, { type: "a", n: 2 });
    r.register({ type: "c", n: 3 });
    expect(r.names()).toEqual(["b", "a", "c"]);
    expect(r.list()).toEqual([
      { type: "b", n: 1 },
      { type: "a", n: 2 },
      { type: "c", n: 3 },
    ]);
    expect(r.get("a")).toEqual({ type: "a", n: 2 });
    expect(r.find("c")).toEqual({ type: "c", n: 3 });
  });

  it("answers an unknown type with undefined (find) or UnknownDestinationTypeError (get)", () => {
    const r = new DestinationTypeRegistry<Named>("outbound").register({ type: "webhook", n: 1 });
    expect(r.find("fax")).toBeUndefined();
    expect(r.find("")).toBeUndefined();
    let thrown: unknown;
    try {
      r.get("fax");
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(UnknownDestinationTypeError);
    expect((thrown as UnknownDestinationTypeError).message).toBe("outbound: fax is not a registered destination type");
    expect((thrown as UnknownDestinationTypeError).type).toBe("fax");
  });

  it("refuses a name registered twice, in one call or across calls, and adds nothing of the refused call", () => {
    const r = new DestinationTypeRegistry<Named>("gateway").register({ type: "HTTP", n: 1 });
    expect(() => r.register({ type: "CLI", n: 2 }, { type: "HTTP", n: 3 })).toThrow(new DuplicateDestinationTypeError("gateway", "HTTP"));
    expect(() => r.register({ type: "X", n: 4 }, { type: "X", n: 5 })).toThrow("gateway: destination type X is registered twice");
    expect(r.names()).toEqual(["HTTP"]);
    expect(r.get("HTTP").n).toBe(1);
  });
});
