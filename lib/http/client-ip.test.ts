import { describe, expect, it } from "vitest";
import { clientIpOf, isSecure } from "@/lib/http/client-ip";

describe("clientIpOf", () => {
  it("clientIpOf – without trust proxy the socket address decides, X-Forwarded-For is ignored", () => {
    expect(clientIpOf("127.0.0.1", { "x-forwarded-for": "10.0.0.1" }, 0)).toBe("127.0.0.1");
  });

  it("clientIpOf – behind one trusted proxy the entry it appended (the last) is the client; earlier ones may be forged", () => {
    expect(clientIpOf("127.0.0.1", { "x-forwarded-for": "10.0.0.1" }, 1)).toBe("10.0.0.1");
    expect(clientIpOf("127.0.0.1", { "x-forwarded-for": " 6.6.6.6 , 10.0.0.2" }, 1)).toBe("10.0.0.2");
  });

  it("clientIpOf – behind N trusted proxies the Nth entry from the right is the client", () => {
    expect(clientIpOf("127.0.0.1", { "x-forwarded-for": "6.6.6.6, 10.0.0.2, 192.0.2.1" }, 2)).toBe("10.0.0.2");
    expect(clientIpOf("127.0.0.1", { "x-forwarded-for": "10.0.0.3" }, 3)).toBe("10.0.0.3");
  });

  it("clientIpOf – with trust proxy and no X-Forwarded-For the socket decides", () => {
    expect(clientIpOf("192.0.2.5", {}, 1)).toBe("192.0.2.5");
    expect(clientIpOf("192.0.2.5", { "x-forwarded-for": "" }, 1)).toBe("192.0.2.5");
  });

  it("clientIpOf – IPv4-mapped IPv6 socket addresses are given as IPv4", () => {
    expect(clientIpOf("::ffff:127.0.0.1", {}, 0)).toBe("127.0.0.1");
    expect(clientIpOf("::1", {}, 0)).toBe("::1");
  });

  it("clientIpOf – unknown socket address", () => {
    expect(clientIpOf(undefined, {}, 0)).toBe("unknown");
  });
});

describe("isSecure", () => {
  it("isSecure – an encrypted socket is secure", () => {
    expect(isSecure(true, {}, 0)).toBe(true);
  });

  it("isSecure – X-Forwarded-Proto https counts only with trust proxy", () => {
    expect(isSecure(false, { "x-forwarded-proto": "https" }, 1)).toBe(true);
    expect(isSecure(false, { "x-forwarded-proto": "HTTPS, http" }, 1)).toBe(true);
    expect(isSecure(false, { "x-forwarded-proto": "https" }, 0)).toBe(false);
    expect(isSecure(false, { "x-forwarded-proto": "http" }, 1)).toBe(false);
    expect(isSecure(false, {}, 1)).toBe(false);
  });
});
