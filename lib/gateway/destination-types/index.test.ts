import { describe, expect, it } from "vitest";
import { GATEWAY_DESTINATION_TYPES } from "@/lib/gateway/destination-types";
import type { GatewayDelivery, GatewayIssue } from "@/lib/gateway/destination-types/type";
import { DESTINATION_TYPES, ZDestinationCreate, ZDestinationUpdate } from "@/lib/gateway/destinations/schemas";
import { gatewayOpenApi } from "@/lib/gateway/openapi/document";
import { resolveDestinationConfig } from "@/lib/gateway/destinations/validate-config";

type TypeEnum = { properties: { type: { enum: string[] } } };

describe("the gateway destination types", () => {
  it("are exactly the types the API accepts and documents, in its order: no registered type missing, no other accepted", () => {
    const names = GATEWAY_DESTINATION_TYPES.names();
    expect(names).toEqual(["HTTP", "CLI", "MOCK_API"]);
    expect([...DESTINATION_TYPES]).toEqual(names);
    for (const type of names) {
      expect(ZDestinationCreate.safeParse({ name: "d", type }).success, type).toBe(true);
      expect(ZDestinationUpdate.safeParse({ type }).success, type).toBe(true);
    }
    for (const type of ["SMTP", "http", ""]) expect(ZDestinationCreate.safeParse({ name: "d", type }).success, type).toBe(false);
    type Doc = {
      components: { schemas: Record<string, TypeEnum> };
      paths: Record<string, { post: { requestBody: { content: Record<string, { schema: TypeEnum }> } } }>;
    };
    const doc = gatewayOpenApi() as Doc;
    expect(doc.components.schemas.Destination.properties.type.enum).toEqual(names);
    expect(doc.paths["/destinations"].post.requestBody.content["application/json"].schema.properties.type.enum).toEqual(names);
  });

  it("stop at the first problem, with the 422's field and message", async () => {
    const first = async (type: string, input: object) => {
      const issues: GatewayIssue[] = [];
      await GATEWAY_DESTINATION_TYPES.get(type).validate(input, issues, undefined);
      return issues;
    };
    expect(await first("HTTP", { path: "/x" })).toEqual([{ field: "config.url", message: "HTTP destination requires `config.url`." }]);
    expect(await first("HTTP", { url: "ftp://x.test" })).toEqual([{ field: "config.url", message: "`config.url` must be an absolute http(s) URL." }]);
    expect(await first("CLI", { rate_limit_period: "minute" })).toEqual([
      { field: "config.rate_limit_period", message: "CLI destinations do not support rate limits." },
    ]);
    expect(await first("MOCK_API", { path: "/x" })).toEqual([
      { field: "config.path", message: "MOCK_API destinations take no `config.path`; `config.url` holds the whole address." },
    ]);
    expect(await first("HTTP", { url: "https://x.test", auth_type: "BASIC_AUTH", auth: { username: "u" } })).toEqual([
      { field: "config.auth.password", message: "BASIC_AUTH: password: Invalid input: expected string, received undefined" },
    ]);
  });

  it("are what resolveDestinationConfig answers: defaults filled in, or a 422 naming the type", async () => {
    expect(await resolveDestinationConfig("MOCK_API", undefined)).toEqual({
      config: { rate_limit: null, rate_limit_period: "second", http_method: null, path_forwarding_disabled: false, auth_type: "GATEWAY_SIGNATURE" },
      auth: {},
    });
    expect(await resolveDestinationConfig("CLI", { auth_type: "BEARER_TOKEN", auth: { token: "t" } })).toEqual({
      config: { path: "/", http_method: null, path_forwarding_disabled: false, auth_type: "BEARER_TOKEN" },
      auth: { token: "t" },
    });
    const err = (await resolveDestinationConfig("CLI", { url: "https://x.test" }).catch((e: unknown) => e)) as { status: number; data: unknown };
    expect({ status: err.status, data: err.data }).toEqual({
      status: 422,
      data: { message: "CLI destinations take no `config.url`.", field: "config.url", type: "CLI" },
    });
  });

  it("describe the event's target: the URL delivery builds, the CLI path, or null", () => {
    const at = { path: "/orders", query: "b=2" };
    expect(GATEWAY_DESTINATION_TYPES.get("HTTP").target({ url: "https://x.test/base/?a=1" }, at)).toBe("https://x.test/base/orders?a=1&b=2");
    expect(GATEWAY_DESTINATION_TYPES.get("CLI").target({ path: "/hooks" }, at)).toBe("/hooks");
    expect(GATEWAY_DESTINATION_TYPES.get("MOCK_API").target({}, at)).toBeNull();
  });

  it("MOCK_API accepts a delivery without sending it", async () => {
    const outcome = await GATEWAY_DESTINATION_TYPES.get("MOCK_API").deliver({ delivery: { method: "PUT" } } as GatewayDelivery);
    expect(outcome).toMatchObject({ status: 200, body: '{"message":"Mock API: accepted"}', errorCode: null, requestedUrl: null, httpMethod: "PUT" });
  });
});
