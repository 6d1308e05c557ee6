/**
 * The dashboard's own API wrapper (docs/operations.md "Teams and users", "System page"): the operator-only
 * JSON endpoints under `/dashboard/api/` (teams, their keys and users, the system view) that the gateway
 * API has no place for. A request needs the dashboard session cookie of an operator: 401 without a valid
 * session, 403 for a user who is not an operator and for an unsafe method from another origin (the CSRF
 * rule of lib/teams/dashboard-session.ts). Errors answer `{status, message}` (the body next-auth's route
 * answers too), from AppError (docs/errors.md); bodies are JSON validated with zod (422 with the problem).
 */
import { z } from "zod";
import { logger } from "@/lib/log";
import { AppError } from "@/lib/http/errors";
import { type SessionUser, sessionCredential } from "@/lib/teams/dashboard-session";

const log = logger("dashboard-api");
const HEADERS = { "content-type": "application/json; charset=utf-8", "cache-control": "no-store" } as const;

/** A JSON answer of the dashboard API. */
export const dashboardJson = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: HEADERS });

/** The `{status, message}` answer of an error (AppError: its status and message; anything else: 500, logged). */
export function dashboardErrorResponse(err: unknown): Response {
  if (err instanceof AppError) return dashboardJson(err.status, { status: err.status, message: err.message });
  if (err instanceof z.ZodError) {
    const first = err.issues[0];
    const message = first ? `${first.path.length ? `${first.path.join(".")}: ` : ""}${first.message}` : "invalid body";
    return dashboardJson(422, { status: 422, message });
  }
  log.error("dashboard API error", err);
  return dashboardJson(500, { status: 500, message: "internal error" });
}

/** The signed-in user of a request, or throws AppError UNAUTHORIZED (no valid session) / FORBIDDEN (cross-site). */
export async function requireUserOf(req: Request): Promise<SessionUser> {
  const session = await sessionCredential(req.method, (h) => req.headers.get(h));
  if (!session) throw new AppError("UNAUTHORIZED", "Sign in to the dashboard first.");
  if (session === "cross-site") throw new AppError("FORBIDDEN", "A cookie-authenticated request must come from the dashboard's own origin.");
  return session;
}

/** The signed-in operator of a request, or throws AppError UNAUTHORIZED (no valid session) / FORBIDDEN (cross-site, not an operator). */
export async function requireOperatorOf(req: Request): Promise<SessionUser> {
  const session = await requireUserOf(req);
  if (!session.operator) throw new AppError("FORBIDDEN", "Only operators may do this.");
  return session;
}

/** What a handler gets: the operator, the route's params, and the body parsed by the route's schema. */
type Ctx<P, B> = { user: SessionUser; params: P; body: B; req: Request };

/**
 * A Next.js route handler of an operator-only endpoint: checks the session ({@link requireOperatorOf}),
 * parses the JSON body with `body` (when given; a body that is not JSON is 400), runs `handler`, and
 * answers its value as JSON with `status` (default 200), or the error's `{status, message}`.
 */
export function operatorRoute<P extends Record<string, string>, S extends z.ZodType = z.ZodUndefined>(
  handler: (ctx: Ctx<P, z.infer<S>>) => Promise<unknown>,
  options: { body?: S; status?: number } = {},
): (req: Request, ctx: { params: Promise<P> }) => Promise<Response> {
  return sessionRoute(requireOperatorOf, handler, options);
}

/**
 * Like {@link operatorRoute}, for any signed-in user (the Settings page's endpoints, which act on the user's
 * own team only: docs/dashboard.md "Settings").
 */
export function userRoute<P extends Record<string, string>, S extends z.ZodType = z.ZodUndefined>(
  handler: (ctx: Ctx<P, z.infer<S>>) => Promise<unknown>,
  options: { body?: S; status?: number } = {},
): (req: Request, ctx: { params: Promise<P> }) => Promise<Response> {
  return sessionRoute(requireUserOf, handler, options);
}

function sessionRoute<P extends Record<string, string>, S extends z.ZodType>(
  requireSession: (req: Request) => Promise<SessionUser>,
  handler: (ctx: Ctx<P, z.infer<S>>) => Promise<unknown>,
  options: { body?: S; status?: number },
): (req: Request, ctx: { params: Promise<P> }) => Promise<Response> {
  return async (req, ctx) => {
    try {
      const user = await requireSession(req);
      let body: unknown = undefined;
      if (options.body) {
        const raw: unknown = await req.json().catch(() => {
          throw new AppError("BAD_REQUEST", "The body must be a JSON object.");
        });
        body = options.body.parse(raw);
      }
      const result = await handler({ user, params: await ctx.params, body: body as z.infer<S>, req });
      return dashboardJson(options.status ?? 200, result);
    } catch (err) {
      return dashboardErrorResponse(err);
    }
  };
}
