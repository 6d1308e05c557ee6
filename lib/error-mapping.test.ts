/**
 * Each surface's mapping of AppError (docs/errors.md): every code → that surface's status and body,
 * values asserted, through the wrappers' own error-body writers (no server, no database).
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { cliErrorBody } from "@/lib/cli-channel/routes";
import { consoleErrorResponse } from "@/lib/console/http";
import { gatewayErrorResponse } from "@/lib/gateway/http";
import { alreadyExists, APP_ERROR_CODES, AppError, type AppErrorCode, badRequest, notFound, unprocessable, withFieldPrefix } from "@/lib/http/errors";
import { parseJsonInput } from "@/lib/http/json-input";
import { rateLimitHeaders } from "@/lib/http/rate-limit";
import { metricsInvalid } from "@/lib/metrics/query";
import { outboundErrorResponse } from "@/lib/outbound/http";
import { outboundBadRequest, outboundForbidden, outboundInvalid, outboundNotFound } from "@/lib/outbound/errors";

/** code → [status, status name (console `code`, CLI `error`), gateway `code`, gateway `message`]. */
const TABLE: Record<AppErrorCode, [number, string, string, string]> = {
  BAD_REQUEST: [400, "BAD_REQUEST", "BAD_REQUEST", "msg"],
  UNAUTHORIZED: [401, "UNAUTHORIZED", "UNAUTHORIZED", "Unauthorized"],
  FORBIDDEN: [403, "FORBIDDEN", "FORBIDDEN", "Forbidden"],
  NOT_FOUND: [404, "NOT_FOUND", "NOT_FOUND", "Not Found"],
  METHOD_NOT_ALLOWED: [405, "METHOD_NOT_ALLOWED", "METHOD_NOT_ALLOWED", "Method Not Allowed"],
  CONFLICT: [409, "CONFLICT", "RESOURCE_ALREADY_EXISTS", "Resource already exists"],
  GONE: [410, "GONE", "GONE", "Gone"],
  PAYLOAD_TOO_LARGE: [413, "PAYLOAD_TOO_LARGE", "PAYLOAD_TOO_LARGE", "Payload Too Large"],
  VALIDATION: [422, "UNPROCESSABLE_ENTITY", "UNPROCESSABLE_ENTITY", "Unprocessable Entity"],
  RATE_LIMITED: [429, "TOO_MANY_REQUESTS", "TOO_MANY_REQUESTS", "Too Many Requests"],
  UNAVAILABLE: [503, "SERVICE_UNAVAILABLE", "SERVICE_UNAVAILABLE", "Service Unavailable"],
};
const ROWS = APP_ERROR_CODES.map((code) => [code, ...TABLE[code]] as const);

it("the table covers the closed set of codes", () => {
  expect([...APP_ERROR_CODES].sort()).toEqual(Object.keys(TABLE).sort());
});

describe("gateway: {handled, status, message, data, code}", () => {
  it.each(ROWS)("%s → %i", (code, status, _name, gatewayCode, message) => {
    expect(gatewayErrorResponse(new AppError(code, "msg"))).toEqual({
      status,
      json: {
        handled: true,
        status,
        message,
        data: code === "BAD_REQUEST" ? {} : { message: "msg" },
        code: gatewayCode,
      },
    });
  });

  it("answers the helpers' data as the real product does", () => {
    expect(gatewayErrorResponse(notFound("src_1")).json).toEqual({
      handled: true,
      status: 404,
      message: "Not Found",
      data: { id: "src_1" },
      code: "NOT_FOUND",
    });
    expect(gatewayErrorResponse(unprocessable("name: too long", { field: "name" })).json).toEqual({
      handled: true,
      status: 422,
      message: "Unprocessable Entity",
      data: { message: "name: too long", field: "name" },
      code: "UNPROCESSABLE_ENTITY",
    });
    expect(gatewayErrorResponse(alreadyExists({ id: "src_2" })).json).toEqual({
      handled: true,
      status: 409,
      message: "Resource already exists",
      data: { id: "src_2" },
      code: "RESOURCE_ALREADY_EXISTS",
    });
    expect(gatewayErrorResponse(badRequest("Invalid cursor", { cursor: "zz" })).json).toEqual({
      handled: true,
      status: 400,
      message: "Invalid cursor",
      data: { cursor: "zz" },
      code: "BAD_REQUEST",
    });
    expect(gatewayErrorResponse(metricsInvalid("granularity", "bad granularity")).json).toEqual({
      handled: true,
      status: 400,
      message: "bad granularity",
      data: { field: "granularity" },
      code: "BAD_REQUEST",
    });
  });

  it("names a field as the request's version spells it, under a prefix for nested parts", () => {
    const err = withFieldPrefix(unprocessable("url: invalid", { field: "config.url" }), "destination");
    expect(gatewayErrorResponse(err, (f) => f.replace("config.", "")).json).toMatchObject({
      status: 422,
      data: { message: "url: invalid", field: "destination.url" },
    });
  });

  it("answers a zod error 422, a unique violation 409 and anything else 500", () => {
    const zod = z.object({ name: z.string() }).safeParse({}).error!;
    expect(gatewayErrorResponse(zod)).toMatchObject({
      status: 422,
      json: {
        status: 422,
        code: "UNPROCESSABLE_ENTITY",
        message: "Unprocessable Entity",
        data: { field: "name" },
      },
    });
    expect(
      gatewayErrorResponse(
        Object.assign(new Error("dup"), {
          code: "23505",
          detail: "Key exists",
        }),
      ),
    ).toEqual({
      status: 409,
      json: {
        handled: true,
        status: 409,
        message: "Resource already exists",
        data: { detail: "Key exists" },
        code: "RESOURCE_ALREADY_EXISTS",
      },
    });
    expect(gatewayErrorResponse(new Error("boom"))).toEqual({
      status: 500,
      json: {
        handled: false,
        status: 500,
        message: "Internal Server Error",
        data: {},
        code: "FATAL_ERROR",
      },
    });
  });
});

describe("outbound: {status, message, data?}", () => {
  it.each(ROWS)("%s → %i", (code, status) => {
    expect(outboundErrorResponse(new AppError(code, "msg"))).toEqual({
      status,
      json: { status, message: "msg" },
    });
  });

  it("shows data and validation messages, never the offending input a gateway body echoes", () => {
    expect(outboundErrorResponse(outboundInvalid(["url is required"])).json).toEqual({
      status: 422,
      message: "validation error",
      data: ["url is required"],
    });
    expect(
      outboundErrorResponse(
        outboundBadRequest("Destination is disabled", {
          error: "destination_disabled",
        }),
      ).json,
    ).toEqual({
      status: 400,
      message: "Destination is disabled",
      data: { error: "destination_disabled" },
    });
    expect(outboundErrorResponse(outboundNotFound()).json).toEqual({
      status: 404,
      message: "not found",
    });
    expect(outboundErrorResponse(outboundForbidden()).json).toEqual({
      status: 403,
      message: "forbidden",
    });
    expect(
      outboundErrorResponse(
        badRequest("Query parameters must not contain U+0000", {
          parameter: "a\\u0000",
        }),
      ).json,
    ).toEqual({
      status: 400,
      message: "Query parameters must not contain U+0000",
    });
  });

  it("answers a zod error 422 with its messages and anything else 500", () => {
    const zod = z.object({ url: z.string() }).safeParse({}).error!;
    expect(outboundErrorResponse(zod)).toEqual({
      status: 422,
      json: {
        status: 422,
        message: "validation error",
        data: ["url is required"],
      },
    });
    expect(outboundErrorResponse(new Error("boom"))).toEqual({
      status: 500,
      json: { status: 500, message: "internal server error" },
    });
  });
});

describe("console: {code, status, data: string[]}; 429 {error, message, retry_after}", () => {
  it.each(ROWS.filter(([code]) => code !== "RATE_LIMITED"))("%s → %i", (code, status, name) => {
    const res = consoleErrorResponse(new AppError(code, "msg"));
    expect(res.status).toBe(status);
    expect(JSON.parse(res.body as string)).toEqual({
      code: name,
      status,
      data: ["msg"],
    });
  });

  it("shows the messages of an error as data", () => {
    const res = consoleErrorResponse(
      new AppError("VALIDATION", "Invalid body", {
        messages: ["name: too long", "type: unknown"],
      }),
    );
    expect(JSON.parse(res.body as string)).toEqual({
      code: "UNPROCESSABLE_ENTITY",
      status: 422,
      data: ["name: too long", "type: unknown"],
    });
  });

  it("RATE_LIMITED → 429 with Retry-After and X-RateLimit-* headers", () => {
    const resetAt = new Date("2026-01-01T00:01:00.000Z");
    const res = consoleErrorResponse(
      new AppError("RATE_LIMITED", "Rate limit exceeded", {
        limit: 10,
        resetAt,
        retryAfterSeconds: 42,
      }),
    );
    expect(res.status).toBe(429);
    expect(JSON.parse(res.body as string)).toEqual({
      error: "Too Many Requests",
      message: "Rate limit of 10 per minute exceeded; retry in 42 s.",
      retry_after: 42,
    });
    expect(res.headers).toMatchObject({
      "x-ratelimit-limit": "10",
      "x-ratelimit-remaining": "0",
      "x-ratelimit-reset": "2026-01-01T00:01:00.000Z",
      "retry-after": "42",
    });
  });

  it("anything else → 500", () => {
    const res = consoleErrorResponse(new Error("boom"));
    expect(res.status).toBe(500);
    expect(JSON.parse(res.body as string)).toEqual({
      code: "INTERNAL_SERVER_ERROR",
      status: 500,
      data: ["Internal server error"],
    });
  });
});

describe("CLI channel: {error, message}", () => {
  it.each(ROWS)("%s → %i", (code, status, name) => {
    const err = new AppError(code, "msg");
    expect([err.status, cliErrorBody(err)]).toEqual([status, { error: name, message: "msg" }]);
  });
});

describe("the shared pieces", () => {
  it("writes the rate-limit headers in ISO or Unix form, Retry-After when given", () => {
    const resetAt = new Date("2026-01-01T00:01:00.500Z");
    expect(rateLimitHeaders(240, 3, resetAt)).toEqual({
      "x-ratelimit-limit": "240",
      "x-ratelimit-remaining": "3",
      "x-ratelimit-reset": "2026-01-01T00:01:00.500Z",
    });
    expect(
      rateLimitHeaders(240, 0, resetAt, {
        reset: "unix",
        retryAfterSeconds: 7,
      }),
    ).toEqual({
      "x-ratelimit-limit": "240",
      "x-ratelimit-remaining": "0",
      "x-ratelimit-reset": String(Math.ceil(resetAt.getTime() / 1000)),
      "retry-after": "7",
    });
  });

  it("a refused JSON input is a 400 AppError naming its field", () => {
    let err: unknown;
    try {
      parseJsonInput('{"a":{"__proto__":1}}');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(AppError);
    expect([(err as AppError).code, (err as AppError).details.field]).toEqual(["BAD_REQUEST", "a.__proto__"]);
  });
});
