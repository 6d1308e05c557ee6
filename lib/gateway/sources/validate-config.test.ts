/**
 * resolveSourceConfig: source `type` + `config` validation and defaults per API version
 * (docs/gateway-api.md#sources, docs/pipeline.md#verification).
 */
import { describe, expect, it } from "vitest";
import { resolveSourceConfig } from "@/lib/gateway/sources/validate-config";
import { AppError } from "@/lib/http/errors";

const HMAC = { algorithm: "sha256", encoding: "hex", header_key: "x-signature", webhook_secret_key: "s3cret" };

/** The field a 422 names. */
function field422(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).status).toBe(422);
    expect((err as AppError).code).toBe("VALIDATION");
    expect(typeof (err as AppError).data.message).toBe("string");
    return (err as AppError).data.field as string;
  }
  throw new Error("expected a 422, nothing was thrown");
}

describe("resolveSourceConfig – defaults", () => {
  it("resolveSourceConfig – WEBHOOK without config: POST PUT PATCH DELETE, no custom response, no auth", () => {
    expect(resolveSourceConfig("WEBHOOK", undefined, "2025-07-01")).toEqual({
      type: "WEBHOOK",
      config: { allowed_http_methods: ["POST", "PUT", "PATCH", "DELETE"], custom_response: null, auth_type: null },
      auth: null,
    });
  });

  it("resolveSourceConfig – provider types take their own default methods (STRIPE POST, EBAY GET POST)", () => {
    expect(resolveSourceConfig("STRIPE", undefined, "2025-07-01").config.allowed_http_methods).toEqual(["POST"]);
    expect(resolveSourceConfig("EBAY", undefined, "2025-07-01").config.allowed_http_methods).toEqual(["GET", "POST"]);
  });

  it("resolveSourceConfig – given methods are kept, duplicates removed", () => {
    expect(resolveSourceConfig("WEBHOOK", { allowed_http_methods: ["GET", "POST", "GET"] }, "2025-07-01").config.allowed_http_methods).toEqual(["GET", "POST"]);
  });

  it("resolveSourceConfig – a provider type with credentials gets auth_type = its type", () => {
    expect(resolveSourceConfig("STRIPE", { auth: { webhook_secret_key: "whsec" } }, "2025-07-01")).toEqual({
      type: "STRIPE",
      config: { allowed_http_methods: ["POST"], custom_response: null, auth_type: "STRIPE" },
      auth: { webhook_secret_key: "whsec" },
    });
  });

  it("resolveSourceConfig – WEBHOOK verifies with HMAC, BASIC_AUTH, API_KEY or a provider scheme", () => {
    expect(resolveSourceConfig("WEBHOOK", { auth_type: "HMAC", auth: HMAC }, "2025-07-01").auth).toEqual(HMAC);
    expect(resolveSourceConfig("WEBHOOK", { auth_type: "BASIC_AUTH", auth: { username: "u", password: "p" } }, "2025-07-01").config.auth_type).toBe(
      "BASIC_AUTH",
    );
    expect(resolveSourceConfig("WEBHOOK", { auth_type: "API_KEY", auth: { header_key: "x-key", api_key: "k" } }, "2025-07-01").auth).toEqual({
      header_key: "x-key",
      api_key: "k",
    });
    expect(resolveSourceConfig("WEBHOOK", { auth_type: "GITHUB", auth: { webhook_secret_key: "g" } }, "2025-07-01").config.auth_type).toBe("GITHUB");
  });

  it("resolveSourceConfig – provider-specific credential fields (GITLAB api_key, POSTMARK username/password)", () => {
    expect(resolveSourceConfig("GITLAB", { auth: { api_key: "k" } }, "2025-07-01").auth).toEqual({ api_key: "k" });
    expect(resolveSourceConfig("POSTMARK", { auth: { username: "u", password: "p" } }, "2025-07-01").auth).toEqual({ username: "u", password: "p" });
  });
});

describe("resolveSourceConfig – refused with a 422 naming the field", () => {
  it.each([
    ["an unknown type", () => resolveSourceConfig("NOPE", undefined, "2025-07-01"), "type"],
    ["a lower-case type", () => resolveSourceConfig("stripe", undefined, "2025-07-01"), "type"],
    [
      "HMAC with a bad algorithm",
      () => resolveSourceConfig("WEBHOOK", { auth_type: "HMAC", auth: { ...HMAC, algorithm: "sha3" } }, "2025-07-01"),
      "config.auth.algorithm",
    ],
    [
      "HMAC with a bad encoding",
      () => resolveSourceConfig("WEBHOOK", { auth_type: "HMAC", auth: { ...HMAC, encoding: "utf8" } }, "2025-07-01"),
      "config.auth.encoding",
    ],
    [
      "HMAC without its secret",
      () => resolveSourceConfig("WEBHOOK", { auth_type: "HMAC", auth: { ...HMAC, webhook_secret_key: undefined } }, "2025-07-01"),
      "config.auth.webhook_secret_key",
    ],
    ["HMAC with an extra field", () => resolveSourceConfig("WEBHOOK", { auth_type: "HMAC", auth: { ...HMAC, extra: 1 } }, "2025-07-01"), "config.auth"],
    [
      "BASIC_AUTH without password",
      () => resolveSourceConfig("WEBHOOK", { auth_type: "BASIC_AUTH", auth: { username: "u" } }, "2025-07-01"),
      "config.auth.password",
    ],
    ["auth without auth_type on WEBHOOK", () => resolveSourceConfig("WEBHOOK", { auth: { webhook_secret_key: "x" } }, "2025-07-01"), "config.auth_type"],
    ["an unknown auth_type", () => resolveSourceConfig("WEBHOOK", { auth_type: "MAGIC", auth: {} }, "2025-07-01"), "config.auth_type"],
    [
      "a provider auth_type on HTTP",
      () => resolveSourceConfig("HTTP", { auth_type: "STRIPE", auth: { webhook_secret_key: "x" } }, "2025-07-01"),
      "config.auth_type",
    ],
    [
      "another provider's auth_type on a provider type",
      () => resolveSourceConfig("STRIPE", { auth_type: "GITHUB", auth: { webhook_secret_key: "x" } }, "2025-07-01"),
      "config.auth_type",
    ],
    ["a provider credential under the wrong name", () => resolveSourceConfig("STRIPE", { auth: { secret: "x" } }, "2025-07-01"), "config.auth"],
    ["the combined CHARGEBEE type in 2025-07-01", () => resolveSourceConfig("CHARGEBEE", undefined, "2025-07-01"), "type"],
    ["FIREBLOCKS without auth in 2025-07-01", () => resolveSourceConfig("FIREBLOCKS", undefined, "2025-07-01"), "config.auth.environment"],
    [
      "FIREBLOCKS with only public_key in 2025-07-01",
      () => resolveSourceConfig("FIREBLOCKS", { auth: { public_key: "pk" } }, "2025-07-01"),
      "config.auth.environment",
    ],
    [
      "FIREBLOCKS with an unknown environment in 2025-07-01",
      () => resolveSourceConfig("FIREBLOCKS", { auth: { environment: "MARS" } }, "2025-07-01"),
      "config.auth.environment",
    ],
  ])("resolveSourceConfig – %s", (_label, fn, field) => {
    const named = field422(fn);
    if (field === "config.auth") expect(named.startsWith("config.auth")).toBe(true);
    else expect(named).toBe(field);
  });
});

describe("resolveSourceConfig – versions", () => {
  it("resolveSourceConfig – CHARGEBEE is accepted before 2025-07-01; CHARGEBEE_BILLING in every version", () => {
    expect(resolveSourceConfig("CHARGEBEE", undefined, "2025-01-01").type).toBe("CHARGEBEE");
    expect(resolveSourceConfig("CHARGEBEE", undefined, "2024-09-01").type).toBe("CHARGEBEE");
    expect(resolveSourceConfig("CHARGEBEE_BILLING", undefined, "2025-07-01").type).toBe("CHARGEBEE_BILLING");
  });

  it("resolveSourceConfig – FIREBLOCKS 2025-07-01 drops public_key and keeps environment", () => {
    expect(resolveSourceConfig("FIREBLOCKS", { auth: { environment: "EU", public_key: "pk" } }, "2025-07-01").auth).toEqual({ environment: "EU" });
  });

  it("resolveSourceConfig – FIREBLOCKS 2025-01-01 needs no environment and keeps public_key", () => {
    expect(resolveSourceConfig("FIREBLOCKS", undefined, "2025-01-01").auth).toBeNull();
    expect(resolveSourceConfig("FIREBLOCKS", { auth: { public_key: "pk" } }, "2025-01-01").auth).toEqual({ public_key: "pk" });
  });
});
