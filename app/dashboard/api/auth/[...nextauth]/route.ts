import NextAuth from "next-auth";
import { authOptions } from "@/lib/dashboard/auth";

export const dynamic = "force-dynamic";

const errorBody = (status: number, message: string, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify({ status, message }), { status, headers: { "content-type": "application/json; charset=utf-8", "cache-control": "no-store", ...headers } });

/**
 * next-auth's endpoints of the dashboard (sign-in, sign-out, session, csrf), lib/dashboard/auth.ts. Its
 * plain-text 4xx answers (an unknown action) become the dashboard API's error body `{status, message}`
 * (docs/dashboard.md "The API behind the pages"); redirects, pages and JSON pass unchanged. A callback
 * (both providers are credentials providers) takes POST only: 405 otherwise.
 */
async function handler(req: Request, ctx: { params: Promise<{ nextauth: string[] }> }): Promise<Response> {
  // Both providers take credentials, which next-auth accepts by POST only (a GET would throw: 500).
  const [action] = (await ctx.params).nextauth;
  if (action === "callback" && req.method !== "POST") return errorBody(405, `${req.method} is not supported on a sign-in callback`, { allow: "POST" });
  const res = await (NextAuth(authOptions()) as unknown as (req: Request, ctx: unknown) => Promise<Response>)(req, ctx);
  const type = res.headers.get("content-type") ?? "";
  if (res.status >= 400 && res.status < 500 && !type.includes("json") && !type.includes("html")) return errorBody(res.status, (await res.text()).replace(/^Error: /, "") || "bad request");
  return res;
}

/** Methods next-auth does not serve: 405 with `Allow` in the dashboard API's error body. */
async function notAllowed(req: Request): Promise<Response> {
  return errorBody(405, `${req.method} is not supported`, { allow: "GET, HEAD, POST" });
}

export { handler as GET, handler as POST, notAllowed as PUT, notAllowed as PATCH, notAllowed as DELETE };
