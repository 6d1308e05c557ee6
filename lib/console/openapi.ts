import { z } from "zod";
import { getConfig } from "@/lib/config";
import { ZConsoleDeliveries } from "@/lib/console/deliveries";
import {
  ZCapturedRequest,
  ZConsoleError,
  ZCreateTestUrlRequest,
  ZRateLimitError,
  ZRenamedTestUrl,
  ZRenameTestUrlRequest,
  ZSourcePreview,
  ZTestUrl,
} from "@/lib/console/schemas";

const CONSOLE_API_VERSION = "0.1.0";

// Every schema with an id must be listed, nested ones too (ZCapturedRequest inside ZSourcePreview):
// an unlisted one ends up under a "__shared" pseudo-component with a $ref that resolves nowhere.
const SCHEMAS = {
  ZCreateTestUrlRequest,
  ZTestUrl,
  ZCapturedRequest,
  ZSourcePreview,
  ZConsoleError,
  ZRateLimitError,
  ZConsoleDeliveries,
  ZRenameTestUrlRequest,
  ZRenamedTestUrl,
};
const ref = (id: string) => ({ $ref: `#/components/schemas/${id}` });
const jsonContent = (id: string) => ({ "application/json": { schema: ref(id) } });

/** JSON Schemas of the console's shapes, generated from the zod schemas that validate them. */
function componentSchemas(): Record<string, unknown> {
  const registry = z.registry<{ id: string }>();
  for (const schema of Object.values(SCHEMAS)) {
    const meta = schema.meta() as { id: string } | undefined;
    registry.add(schema, { ...meta, id: meta!.id });
  }
  const out = z.toJSONSchema(registry, { target: "draft-2020-12", uri: (id) => `#/components/schemas/${id}`, io: "output" });
  return out.schemas;
}

const rateLimitHeaders = {
  "Retry-After": { description: "Seconds until the window resets.", schema: { type: "integer" } },
  "X-RateLimit-Remaining": { description: "Creations left in the window.", schema: { type: "integer" } },
  "X-RateLimit-Reset": { description: "When the window resets.", schema: { type: "string", format: "date-time" } },
};

/** The OpenAPI 3.1 document of the console API, served at `GET /openapi.json` (version 0.1.0). */
export function consoleOpenApi(): Record<string, unknown> {
  const schemas = componentSchemas();
  // `$id: "#/components/…"` (a fragment) is not a valid JSON Schema 2020-12 `$id`; components need none.
  for (const s of Object.values(schemas)) {
    delete (s as { $schema?: string }).$schema;
    delete (s as { $id?: string }).$id;
  }
  const idParam = { name: "id", in: "path", required: true, description: "The source id without its `src_` prefix.", schema: { type: "string" } };
  const requestIdParam = { name: "request_id", in: "path", required: true, description: "A captured request's id (`req_…`).", schema: { type: "string" } };
  return {
    openapi: "3.1.0",
    info: {
      title: "Hookyard Console API",
      version: CONSOLE_API_VERSION,
      description: "Disposable test URLs: create one with no account, send any request to it, read what arrived. Early beta.",
    },
    servers: [{ url: getConfig().publicUrl }],
    paths: {
      "/": {
        post: {
          operationId: "createTestUrl",
          summary: "Create a test URL",
          description: "Creates a source in the caller's guest workspace (a new one, with a session cookie, when none is sent). 60 per minute.",
          requestBody: { required: false, content: jsonContent("CreateTestUrlRequest") },
          responses: {
            "201": {
              description: "The test URL.",
              headers: {
                Location: { description: "Equals `inspect_url`.", schema: { type: "string", format: "uri" } },
                "Set-Cookie": { description: "Session cookie, on the first unauthenticated create.", schema: { type: "string" } },
              },
              content: jsonContent("TestUrl"),
            },
            "422": { description: "Invalid body, unsupported type, or a type requiring authentication.", content: jsonContent("ConsoleError") },
            "429": { description: "Creation rate limit exceeded.", headers: rateLimitHeaders, content: jsonContent("RateLimitError") },
          },
        },
      },
      "/{id}": {
        get: {
          operationId: "getSourcePreview",
          summary: "Inspect a test URL",
          description:
            "With `Accept: application/json`, the source preview; otherwise the console web application. Never captured. JSON of 1 KiB or more is compressed (br, gzip) when `Accept-Encoding` allows.",
          parameters: [
            idParam,
            {
              name: "before",
              in: "query",
              required: false,
              description: "A request id of this test URL: list the (at most 100) requests captured before it, newest first. Unknown ids give an empty list.",
              schema: { type: "string" },
            },
            {
              name: "q",
              in: "query",
              required: false,
              description: "List only requests whose method, path, query or headers contain this text (any case) or whose body contains it (exact bytes).",
              schema: { type: "string", minLength: 1, maxLength: 200 },
            },
          ],
          responses: {
            "200": { description: "The source preview.", content: { ...jsonContent("SourcePreview"), "text/html": { schema: { type: "string" } } } },
            "404": { description: "No test URL with that id.", content: jsonContent("ConsoleError") },
            "422": { description: "A search text (`q`) that is empty or longer than 200 characters.", content: jsonContent("ConsoleError") },
          },
        },
        patch: {
          operationId: "renameTestUrl",
          summary: "Rename a test URL",
          description: "Only for the workspace that created the test URL: send its `hookyard_session` cookie. 60 per minute.",
          parameters: [idParam],
          requestBody: { required: true, content: jsonContent("RenameTestUrlRequest") },
          responses: {
            "200": { description: "The renamed test URL.", content: jsonContent("RenamedTestUrl") },
            "403": { description: "No session cookie, or not the cookie of the workspace that created the test URL.", content: jsonContent("ConsoleError") },
            "404": { description: "No test URL with that id.", content: jsonContent("ConsoleError") },
            "409": { description: "Another test URL of the workspace has that name.", content: jsonContent("ConsoleError") },
            "422": { description: "Invalid body (missing, empty or too long `name`, unknown properties).", content: jsonContent("ConsoleError") },
            "429": { description: "Rate limit exceeded.", headers: rateLimitHeaders, content: jsonContent("RateLimitError") },
          },
        },
        delete: {
          operationId: "deleteTestUrl",
          summary: "Delete a test URL",
          description:
            "Deletes the test URL with its captured requests; its ingest URL then answers 404. Only for the workspace that created it: send its `hookyard_session` cookie. 60 per minute.",
          parameters: [idParam],
          responses: {
            "204": { description: "Deleted." },
            "403": { description: "No session cookie, or not the cookie of the workspace that created the test URL.", content: jsonContent("ConsoleError") },
            "404": { description: "No test URL with that id.", content: jsonContent("ConsoleError") },
            "429": { description: "Rate limit exceeded.", headers: rateLimitHeaders, content: jsonContent("RateLimitError") },
          },
        },
      },
      "/{id}/requests/{request_id}/events": {
        get: {
          operationId: "getRequestDeliveries",
          summary: "What became of a captured request",
          description: "Its events (one per connection, e.g. the one `hookyard listen` creates), each with its delivery attempts, and its ignored events.",
          parameters: [idParam, requestIdParam],
          responses: {
            "200": { description: "Events, attempts and ignored events.", content: jsonContent("RequestDeliveries") },
            "404": { description: "No such request on this test URL.", content: jsonContent("ConsoleError") },
          },
        },
      },
      "/{id}/requests/{request_id}/retry": {
        post: {
          operationId: "retryRequest",
          summary: "Deliver a captured request again",
          description:
            "Runs the request through the test URL's connections again (for instance to a running `hookyard listen`). Only for the workspace that created the test URL: send its `hookyard_session` cookie. 60 per minute.",
          parameters: [idParam, requestIdParam],
          responses: {
            "200": {
              description: "The new events' ids.",
              content: {
                "application/json": {
                  schema: {
                    type: "object",
                    properties: { request_id: { type: "string" }, event_ids: { type: "array", items: { type: "string" } } },
                    required: ["request_id", "event_ids"],
                  },
                },
              },
            },
            "403": { description: "No session cookie, or not the cookie of the workspace that created the test URL.", content: jsonContent("ConsoleError") },
            "404": { description: "No such request on this test URL.", content: jsonContent("ConsoleError") },
            "429": { description: "Rate limit exceeded.", headers: rateLimitHeaders, content: jsonContent("RateLimitError") },
          },
        },
      },
      "/e/{id}": {
        post: {
          operationId: "ingest",
          summary: "Send a request to a test URL",
          description: "Any method (GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS) and any body up to 10 MiB is captured. Also `/e/{id}/{path}`.",
          parameters: [idParam],
          requestBody: { required: false, content: { "*/*": { schema: {} } } },
          responses: {
            "200": { description: "The source's configured response, by default `{status, message, request_id}`." },
            "404": { description: "No test URL with that id." },
            "405": { description: "Method not allowed by the source (the request is still captured)." },
            "413": { description: "Body larger than 10 MiB (captured without its body)." },
          },
        },
      },
      "/new": {
        get: {
          operationId: "newTestUrlPage",
          summary: "Browser page that creates a test URL",
          parameters: [{ name: "type", in: "query", required: false, schema: { type: "string", maxLength: 64 } }],
          responses: {
            "200": { description: "The console web application.", content: { "text/html": { schema: { type: "string" } } } },
            "429": { description: "Rate limit exceeded (10 per minute).", headers: rateLimitHeaders, content: jsonContent("RateLimitError") },
          },
        },
      },
    },
    components: { schemas },
  };
}
