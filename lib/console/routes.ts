/**
 * Console API handlers (docs/console-api.md#endpoints). `/` and `/{id}` are shared with the
 * console pages, so the custom server (server.ts) routes these by method and `Accept` before Next.js
 * sees the request; each handler is wrapped by `consoleRoute` (lib/console/http.ts).
 */
import { createTestUrl } from "@/lib/console/create-test-url";
import { getRequestDeliveries, retryConsoleRequest } from "@/lib/console/deliveries";
import { consoleOpenApi } from "@/lib/console/openapi";
import { getRawBody, getSourcePreview } from "@/lib/console/preview";
import { deleteConsoleSource, renameConsoleSource } from "@/lib/console/manage";
import { ZCreateTestUrlRequest, ZRenameTestUrlRequest } from "@/lib/console/schemas";
import { cookieDomainFor, sessionCookie } from "@/lib/console/sessions";
import { consoleRoute } from "@/lib/console/http";
import { json } from "@/lib/http/types";

// POST / - create a test URL (60 per minute per session or client IP)
export const createTestUrlRoute = consoleRoute(
  { rateLimit: { name: "create", perMinute: (c) => c.consoleCreateRateLimit }, body: ZCreateTestUrlRequest },
  async ({ req, body, session, config }) => {
    const { testUrl, newSession } = await createTestUrl(body, session);
    const headers: Record<string, string | string[]> = { location: testUrl.inspect_url, "cache-control": "no-store" };
    if (newSession) {
      const domain = cookieDomainFor(req.headers.host ?? "", config.cookieDomain);
      const secure = req.secure || config.publicUrl.startsWith("https://");
      headers["set-cookie"] = sessionCookie({ token: newSession.token, expiresAt: newSession.expiresAt, domain, secure });
    }
    return json(201, testUrl, headers);
  },
);

// GET /{id} with Accept: application/json - the source preview; `?before=<request id>` pages past the newest 100, `?q=` searches
export const previewRoute = (publicId: string) =>
  consoleRoute({}, async ({ req }) => {
    const params = new URLSearchParams(req.query);
    const filter = { before: params.get("before") || undefined, q: params.get("q") ?? undefined };
    const { team_id: _teamId, ...preview } = await getSourcePreview(publicId, filter);
    return json(200, preview, { "cache-control": "no-store" });
  });

// PATCH /{id} - rename the test URL; DELETE /{id} - delete it with its requests. Owner's session cookie only (403 otherwise).
export const renameTestUrlRoute = (publicId: string) =>
  consoleRoute({ rateLimit: { name: "manage", perMinute: (c) => c.consoleCreateRateLimit }, body: ZRenameTestUrlRequest }, async ({ body, session }) =>
    json(200, await renameConsoleSource(publicId, body.name, session), { "cache-control": "no-store" }),
  );
export const deleteTestUrlRoute = (publicId: string) =>
  consoleRoute({ rateLimit: { name: "manage", perMinute: (c) => c.consoleCreateRateLimit } }, async ({ session }) => {
    await deleteConsoleSource(publicId, session);
    return { status: 204, headers: { "cache-control": "no-store" } };
  });

// GET /{id}/requests/{request_id}/raw - the exact body, always as a download (never rendered)
export const rawBodyRoute = (publicId: string, requestId: string) =>
  consoleRoute({}, async () => {
    const { body } = await getRawBody(publicId, requestId);
    return {
      status: 200,
      headers: {
        "content-type": "application/octet-stream",
        "content-disposition": `attachment; filename="${requestId}.bin"`,
        "x-content-type-options": "nosniff",
        "cache-control": "no-store",
      },
      body,
    };
  });

// GET /{id}/requests/{request_id}/events - what became of the request: events with attempts, ignored events
export const deliveriesRoute = (publicId: string, requestId: string) =>
  consoleRoute({}, async () => json(200, await getRequestDeliveries(publicId, requestId), { "cache-control": "no-store" }));

// POST /{id}/requests/{request_id}/retry - run the request through the test URL's connections again (60 per minute);
// only with the owning workspace's session cookie (403 otherwise)
export const retryRequestRoute = (publicId: string, requestId: string) =>
  consoleRoute({ rateLimit: { name: "retry", perMinute: (c) => c.consoleCreateRateLimit } }, async ({ session }) =>
    json(200, await retryConsoleRequest(publicId, requestId, session), { "cache-control": "no-store" }),
  );

// GET /new - only the rate limit (10 per minute); the page itself is rendered by Next.js
export const newPageGate = consoleRoute({ rateLimit: { name: "new", perMinute: (c) => c.consoleNewRateLimit } }, () =>
  Promise.resolve({
    status: 200,
  }),
);

// GET /openapi.json - OpenAPI 3.1 of the console API
export const openApiRoute = consoleRoute({}, () => Promise.resolve(json(200, consoleOpenApi())));
