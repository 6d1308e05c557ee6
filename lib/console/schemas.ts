/**
 * Console API shapes (docs/console-api.md). The same schemas
 * validate input, shape output and generate `GET /openapi.json` (lib/console/openapi.ts).
 */
import { z } from "zod";

/** `POST /` body. No other properties are allowed. */
export const ZCreateTestUrlRequest = z
  .strictObject({
    type: z
      .string()
      .max(64)
      .regex(/^[A-Z0-9_]+$/, "type must be upper case (A-Z, 0-9, _)")
      .optional()
      .meta({ description: "Source type. Omitted gives a generic WEBHOOK source.", example: "WEBHOOK" }),
    name: z
      .string()
      .trim()
      .min(1)
      .max(155)
      .optional()
      .meta({ description: "Source name; defaults to `Source`. A name already taken in the workspace gets a suffix." }),
  })
  .meta({ id: "CreateTestUrlRequest" });
export type TCreateTestUrlRequest = z.infer<typeof ZCreateTestUrlRequest>;

/** `POST /` 201 body. */
export const ZTestUrl = z
  .object({
    ingest_url: z.url().meta({ description: "`{console_url}/e/<id>`: requests of any configured verb sent here are captured." }),
    inspect_url: z.url().meta({ description: "`{console_url}/<id>`; equals the Location header." }),
    type: z.string().meta({ description: "The resolved source type." }),
    name: z.string().meta({ description: "The source name." }),
    cli_key: z.string().meta({ description: "Key of the CLI for the source's workspace. Not an API credential." }),
    cmd_hint: z.string().meta({ description: "Ready-to-run CLI command; `[port]` and `<source-name>` are placeholders." }),
  })
  .meta({ id: "TestUrl" });
export type TTestUrl = z.infer<typeof ZTestUrl>;

/** One captured request in the source preview. */
export const ZCapturedRequest = z
  .object({
    id: z.string().meta({ description: "Request id (`req_…`)." }),
    verb: z.string().meta({ description: "Captured HTTP method." }),
    received_at: z.iso.datetime().meta({ description: "When the request was ingested." }),
    path: z.string().meta({ description: "Path after the ingest URL, starting with `/`." }),
    query: z.string().meta({ description: "Raw query string, without `?`." }),
    headers: z.record(z.string(), z.string()).meta({ description: "Captured request headers (lower-case names)." }),
    body: z
      .union([z.string(), z.record(z.string(), z.unknown()), z.array(z.unknown())])
      .nullable()
      .meta({ description: "Truncated preview of the body: parsed JSON, text, or base64 for binary content." }),
    body_encoding: z.enum(["json", "text", "base64"]).nullable().meta({ description: "How `body` is given; null without body." }),
    body_size: z.number().int().meta({ description: "Body size in bytes." }),
    body_truncated: z.boolean().meta({ description: "True when `body` holds only the first bytes of the body." }),
    content_type: z.string().nullable(),
    verified: z.boolean().meta({ description: "Whether the request passed the source's verification." }),
    rejection_cause: z.string().nullable().meta({ description: "Why the request was rejected: NO_CONNECTION, UNSUPPORTED_HTTP_METHOD, PAYLOAD_TOO_LARGE, …" }),
  })
  .partial()
  .meta({ id: "CapturedRequest" });
export type TCapturedRequest = z.infer<typeof ZCapturedRequest>;

/** `GET /{id}` with `Accept: application/json`. */
export const ZSourcePreview = z
  .object({
    id: z.string().meta({ description: "The source id, with `src_` prefix." }),
    ingest_url: z.url(),
    type: z.string(),
    name: z.string(),
    requests: z.array(ZCapturedRequest).meta({ description: "Most recently captured requests, newest first." }),
  })
  .meta({ id: "SourcePreview" });
export type TSourcePreview = z.infer<typeof ZSourcePreview>;

/** 422 (and other error) body of the console API. */
export const ZConsoleError = z
  .object({
    code: z.string().meta({ example: "UNPROCESSABLE_ENTITY" }),
    status: z.number().int().meta({ example: 422 }),
    data: z.array(z.string()).meta({ description: "Validation messages." }),
  })
  .meta({ id: "ConsoleError" });

/** 429 body. */
export const ZRateLimitError = z
  .object({
    error: z.string(),
    message: z.string(),
    retry_after: z.number().int().meta({ description: "Seconds until the window resets." }),
  })
  .meta({ id: "RateLimitError" });

/** `PATCH /{id}` body: the test URL's new name (docs/console-api.md "Renaming and deleting a test URL"). */
export const ZRenameTestUrlRequest = z
  .strictObject({
    name: z.string().trim().min(1).max(155).meta({ description: "The new name, 1–155 characters, unique in the workspace.", example: "Stripe staging" }),
  })
  .meta({ id: "RenameTestUrlRequest" });
export type TRenameTestUrlRequest = z.infer<typeof ZRenameTestUrlRequest>;

/** `PATCH /{id}` 200 body. */
export const ZRenamedTestUrl = z
  .object({
    id: z.string().meta({ description: "The source id, with `src_` prefix." }),
    name: z.string().meta({ description: "The source name, as stored." }),
  })
  .meta({ id: "RenamedTestUrl" });
