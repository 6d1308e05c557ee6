import { describe, expect, it } from "vitest";
import { clientIpOf, isSecure } from "@/lib/http/client-ip";

describe("clientIpOf", () => {
  it("clientIpOf – without trust proxy the socket address decides, X-Forwarded-For is ignored", () => {
    expect(clientIpOf("127.0.0.1", { "x-forwarded-for": "10.0.0.1" }, false)).toBe("127.0.0.1");
  });

  it("clientIpOf – with trust proxy the first X-Forwarded-For entry is the client", () => {
    expect(clientIpOf("127.0.0.1", { "x-forwarded-for": "10.0.0.1" }, true)).toBe("10.0.0.1");
    expect(clientIpOf("127.0.0.1", { "x-forwarded-for": " 10.0.0.2 , 192.0.2.1, 127.0.0.1" }, true)).toBe("10.0.0.2");
  });

  it("clientIpOf – with trust proxy and no X-Forwarded-For the socket decides", () => {
    expect(clientIpOf("192.0.2.5", {}, true)).toBe("192.0.2.5");
    expect(clientIpOf("192.0.2.5", { "x-forwarded-for": "" }, true)).toBe("192.0.2.5");
  });

  it("clientIpOf – IPv4-mapped IPv6 socket addresses are given as IPv4", () => {
    expect(clientIpOf("::ffff:127.0.0.1", {}, false)).toBe("127.0.0.1");
    expect(clientIpOf("::1", {}, false)).toBe("::1");
  });

  it("clientIpOf – unknown socket address", () => {
    expect(clientIpOf(undefined, {}, false)).toBe("unknown");
  });
});

describe("isSecure", () => {
  it("isSecure – an encrypted socket is secure", () => {
    expect(isSecure(true, {}, false)).toBe(true);
  });

  it("isSecure – X-Forwarded-Proto https counts only with trust proxy", () => {
    expect(isSecure(false, { "x-forwarded-proto": "https" }, true)).toBe(true);
    expect(isSecure(false, { "x-forwarded-proto": "HTTPS, http" }, true)).toBe(true);
    expect(isSecure(false, { "x-forwarded-proto": "https" }, false)).toBe(false);
    expect(isSecure(false, { "x-forwarded-proto": "http" }, true)).toBe(false);
    expect(isSecure(false, {}, true)).toBe(false);
  });
});
