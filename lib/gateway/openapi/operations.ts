/**
 * Operations of the gateway API for its OpenAPI document: one entry per endpoint, with the zod
 * schemas its handler validates with (`body`) and answers with (`response`).
 */
import { z } from "zod";
import { ZSource, ZSourceCreate, ZSourceUpdate } from "@/lib/gateway/sources/schemas";

export type Operation = {
  method: "get" | "post" | "put" | "delete";
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tag: string;
  body?: z.ZodType;
  response?: z.ZodType;
  /** The answer is a page: `{pagination, count, models: response[]}`. */
  list?: boolean;
  status?: number;
  query?: { name: string; description?: string; schema: Record<string, unknown> }[];
  errors?: (400 | 404 | 409 | 422)[];
};

const filter = (name: string, description: string, schema: Record<string, unknown> = { type: "string" }) => ({ name, description, schema });
const include = filter("include", "`config.auth` reveals credentials.");
/** `GET /…/count` answers. */
export const ZCount = z.object({ count: z.number().int() }).meta({ id: "Count" });
/** `DELETE /…/{id}` answers. */
export const ZDeleted = z.object({ id: z.string() }).meta({ id: "Deleted" });

export const OPERATIONS: Operation[] = [
  {
    method: "get",
    path: "/sources",
    operationId: "listSources",
    summary: "List sources",
    tag: "Sources",
    response: ZSource,
    list: true,
    query: [
      filter("id", "Source id, or an array `id[]=…`."),
      filter("name", "Name, array, or `name[contains]=`."),
      filter("type", "Source type."),
      filter("disabled", "`true` includes disabled sources.", { type: "boolean" }),
      filter("disabled_at", "Date with operators gte, gt, lte, lt, any."),
      include,
    ],
    errors: [400],
  },
  { method: "post", path: "/sources", operationId: "createSource", summary: "Create a source", tag: "Sources", body: ZSourceCreate, response: ZSource, errors: [400, 409, 422] },
  { method: "put", path: "/sources", operationId: "upsertSource", summary: "Create or update a source by name", tag: "Sources", body: ZSourceCreate, response: ZSource, errors: [400, 422] },
  { method: "get", path: "/sources/count", operationId: "countSources", summary: "Count sources", tag: "Sources", response: ZCount, errors: [400] },
  { method: "get", path: "/sources/{id}", operationId: "getSource", summary: "Get a source", tag: "Sources", response: ZSource, query: [include], errors: [404] },
  { method: "put", path: "/sources/{id}", operationId: "updateSource", summary: "Update a source", tag: "Sources", body: ZSourceUpdate, response: ZSource, errors: [400, 404, 409, 422] },
  { method: "delete", path: "/sources/{id}", operationId: "deleteSource", summary: "Delete a source", tag: "Sources", response: ZDeleted, errors: [404] },
  ...(["disable", "enable", "archive", "unarchive"] as const).map(
    (action): Operation => ({
      method: "put",
      path: `/sources/{id}/${action}`,
      operationId: `${action}Source`,
      summary: `${action[0]!.toUpperCase()}${action.slice(1)} a source`,
      tag: "Sources",
      response: ZSource,
      errors: [404],
    }),
  ),
];
