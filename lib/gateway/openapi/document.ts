/**
 * The OpenAPI 3.1 document of the gateway REST API (2025-07-01), served at `/api/2025-07-01/openapi`,
 * generated from the zod schemas that validate requests and shape responses. Each resource adds its
 * operations to OPERATIONS (lib/gateway/openapi/operations.ts).
 */
import { z } from "zod";
import { getConfig } from "@/lib/config";
import { OPERATIONS, type Operation } from "@/lib/gateway/openapi/operations";

const ERROR = {
  type: "object",
  required: ["handled", "status", "message", "data"],
  properties: {
    handled: { type: "boolean" },
    status: { type: "integer" },
    message: { type: "string" },
    data: { type: "object" },
    code: { type: "string", examples: ["UNPROCESSABLE_ENTITY"] },
  },
};

const PAGINATION = {
  type: "object",
  required: ["order_by", "dir", "limit"],
  properties: {
    order_by: { type: "string" },
    dir: { type: "string", enum: ["asc", "desc"] },
    limit: { type: "integer", minimum: 0, maximum: 250 },
    next: { type: "string", description: "Cursor of the following page." },
    prev: { type: "string", description: "Cursor of the previous page." },
  },
};

const PAGING_PARAMS = [
  { name: "order_by", in: "query", schema: { type: "string", default: "created_at" } },
  { name: "dir", in: "query", schema: { type: "string", enum: ["asc", "desc"], default: "desc" } },
  { name: "limit", in: "query", schema: { type: "integer", minimum: 0, maximum: 250, default: 100 } },
  { name: "next", in: "query", schema: { type: "string" } },
  { name: "prev", in: "query", schema: { type: "string" } },
];

const RATE_HEADERS = {
  "X-RateLimit-Limit": { schema: { type: "integer" } },
  "X-RateLimit-Remaining": { schema: { type: "integer" } },
  "X-RateLimit-Reset": { schema: { type: "string", format: "date-time" } },
};

/** Replaces `#/$defs/{name}` references with `#/components/schemas/{rename(name)}`, everywhere in `value`. */
function hoistRefs(value: unknown, rename: (name: string) => string): unknown {
  if (Array.isArray(value)) return value.map((v) => hoistRefs(v, rename));
  if (!value || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [
      k,
      k === "$ref" && typeof v === "string" && v.startsWith("#/$defs/") ? `#/components/schemas/${rename(v.slice(8))}` : hoistRefs(v, rename),
    ]),
  );
}

/**
 * Request bodies are inlined (their input form: defaults optional). Schemas the body shares or nests in
 * itself (a JSON value in rules) come out of zod as `$defs`; they move to `components` (named by their
 * zod `meta({id})`, or after `owner` when unnamed) so every reference resolves in the document.
 */
function inputSchema(schema: z.ZodType, components: Record<string, unknown>, owner: string): unknown {
  const out = z.toJSONSchema(schema, { target: "draft-2020-12", io: "input", unrepresentable: "any" }) as Record<string, unknown>;
  delete out.$schema;
  const defs = (out.$defs ?? {}) as Record<string, unknown>;
  delete out.$defs;
  const rename = (name: string) => (name.startsWith("__") ? `${owner}${name.replace(/^_+/, "_")}` : name);
  for (const [name, def] of Object.entries(defs)) components[rename(name)] ??= hoistRefs(def, rename);
  return hoistRefs(out, rename);
}

/** Response models become components (by their zod `meta({id})`), referenced from each operation. */
function outputComponents(): Record<string, unknown> {
  const registry = z.registry<{ id: string }>();
  for (const op of OPERATIONS) {
    const id = op.response ? (op.response.meta() as { id?: string } | undefined)?.id : undefined;
    if (op.response && id && !registry.has(op.response)) registry.add(op.response, { id });
  }
  const out = z.toJSONSchema(registry, { target: "draft-2020-12", io: "output", unrepresentable: "any", uri: (id) => `#/components/schemas/${id}` });
  const schemas = out.schemas as Record<string, Record<string, unknown>>;
  for (const schema of Object.values(schemas)) {
    delete schema.$schema;
    delete schema.$id;
    delete schema.id;
  }
  return schemas;
}

function outputRef(schema: z.ZodType, components: Record<string, unknown>, owner: string): unknown {
  const id = (schema.meta() as { id?: string } | undefined)?.id;
  return id ? { $ref: `#/components/schemas/${id}` } : inputSchema(schema, components, owner);
}

function operationObject(op: Operation, components: Record<string, unknown>) {
  const pathParams = [...op.path.matchAll(/\{(\w+)\}/g)].map((m) => ({ name: m[1], in: "path", required: true, schema: { type: "string" } }));
  const responseSchema = op.response ? outputRef(op.response, components, op.operationId) : { type: "object" };
  const success = op.list
    ? {
        type: "object",
        required: ["pagination", "count", "models"],
        properties: { pagination: PAGINATION, count: { type: "integer" }, models: { type: "array", items: responseSchema } },
      }
    : responseSchema;
  const errors: Record<string, unknown> = {};
  for (const status of op.errors ?? []) errors[String(status)] = { $ref: `#/components/responses/Error${status}` };
  return {
    operationId: op.operationId,
    summary: op.summary,
    ...(op.description ? { description: op.description } : {}),
    tags: [op.tag],
    // An operation's own parameter (an `order_by` listing its keys) replaces the shared paging one of that name.
    parameters: [
      ...pathParams,
      ...(op.query ?? []).map((q) => ({ in: "query", ...q })),
      ...(op.list ? PAGING_PARAMS.filter((p) => !op.query?.some((q) => q.name === p.name)) : []),
    ],
    ...(op.body ? { requestBody: { required: true, content: { "application/json": { schema: inputSchema(op.body, components, op.operationId) } } } } : {}),
    responses: {
      [String(op.status ?? 200)]: { description: "Success", headers: RATE_HEADERS, content: { "application/json": { schema: success } } },
      "401": { $ref: "#/components/responses/Error401" },
      "429": { $ref: "#/components/responses/Error429" },
      ...errors,
    },
  };
}

/** The document for API version 2025-07-01. */
export function gatewayOpenApi(): Record<string, unknown> {
  const components: Record<string, unknown> = { GatewayError: ERROR, ...outputComponents() };
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of OPERATIONS) {
    paths[op.path] ??= {};
    paths[op.path][op.method] = operationObject(op, components);
  }
  const errorResponse = (description: string) => ({ description, content: { "application/json": { schema: { $ref: "#/components/schemas/GatewayError" } } } });
  return {
    openapi: "3.1.0",
    info: {
      title: "Hookyard Event Gateway API",
      version: "2025-07-01",
      description:
        "Configure sources, destinations, connections and transformations; inspect requests, events, ignored events, attempts and transformation executions. Authenticate with `Authorization: Bearer <API key>` (or Basic with the key as username). 240 requests per minute per key.",
    },
    servers: [{ url: `${getConfig().gatewayApiUrl}/2025-07-01` }],
    security: [{ bearer: [] }, { basic: [] }],
    paths,
    components: {
      schemas: components,
      securitySchemes: { bearer: { type: "http", scheme: "bearer" }, basic: { type: "http", scheme: "basic" } },
      responses: {
        Error400: errorResponse("Bad request (query, JSON or cursor)."),
        Error401: errorResponse("Missing or invalid API key."),
        Error404: errorResponse("Not found."),
        Error409: errorResponse("Resource already exists."),
        Error422: errorResponse("Invalid body; `data.field` names the field."),
        Error429: errorResponse("Rate limit exceeded; see Retry-After."),
      },
    },
  };
}
