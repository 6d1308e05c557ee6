import NextAuth from "next-auth";
import { authOptions } from "@/lib/dashboard/auth";
import { parseCookies } from "@/lib/http/cookies";

export const dynamic = "force-dynamic";

const errorBody = (status: number, message: string, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify({ status, message }), {
    status,
    headers: { "content-type": "application/json; charset=utf-8", "cache-control": "no-store", ...headers },
  });

type ApiRequest = {
  query: Record<string, string | string[]>;
  body: Record<string, string> | undefined;
  cookies: Record<string, string>;
  headers: Record<string, string>;
  method: string;
};

/** The request body next-auth reads: a form or JSON object on POST, else none (a malformed one: none). */
async function bodyOf(req: Request): Promise<Record<string, string> | undefined> {
  if (req.method !== "POST") return undefined;
  const type = req.headers.get("content-type") ?? "";
  if (type.includes("application/x-www-form-urlencoded")) return Object.fromEntries(new URLSearchParams(await req.text()));
  if (type.includes("application/json")) {
    const parsed: unknown = await req.json().catch(() => undefined);
    return parsed && typeof parsed === "object" && !Array.isArray(parsed) ? (parsed as Record<string, string>) : undefined;
  }
  return undefined;
}

/**
 * Whether next-auth takes `value` as a callback URL: a path on this site or an absolute http(s) URL (what
 * its own check accepts; anything else it answers with a 500 "server configuration" page).
 */
function isCallbackUrl(value: string, base: URL): boolean {
  try {
    return /^https?:$/.test(new URL(value, value.startsWith("/") ? base : undefined).protocol);
  } catch {
    return false;
  }
}

/**
 * Calls next-auth through its documented `NextAuth(req, res, options)` form so that its cookies come from
 * the app's one cookie parser (lib/http/cookies.ts; docs/architecture.md "Cookies") rather than from Next's.
 */
async function nextAuth(req: Request, ctx: { params: Promise<{ nextauth: string[] }> }): Promise<Response> {
  const url = new URL(req.url);
  // A callback-URL cookie next-auth would refuse (a forged or garbled one) is left out: it signs in without it.
  const cookies = Object.fromEntries(
    [...parseCookies(req.headers.get("cookie"))].filter(([name, value]) => !name.endsWith("callback-url") || isCallbackUrl(value, url)),
  );
  const apiReq: ApiRequest = {
    query: { ...Object.fromEntries(url.searchParams), nextauth: (await ctx.params).nextauth ?? [] },
    body: await bodyOf(req),
    cookies,
    headers: Object.fromEntries(req.headers),
    method: req.method,
  };
  let status = 200;
  const headers = new Headers();
  let body: string | null = null;
  const res = {
    status(code: number) {
      status = code;
      return res;
    },
    getHeader: (name: string) => (name.toLowerCase() === "set-cookie" ? headers.getSetCookie() : (headers.get(name) ?? undefined)),
    setHeader(name: string, value: string | string[]) {
      headers.delete(name);
      for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
      return res;
    },
    end() {},
    json(value: unknown) {
      headers.set("content-type", "application/json");
      body = JSON.stringify(value);
    },
    send(value: unknown) {
      body = typeof value === "string" || value === undefined || value === null ? (value ?? null) : JSON.stringify(value);
    },
  };
  await (NextAuth as unknown as (req: ApiRequest, res: unknown, options: unknown) => Promise<void>)(apiReq, res, authOptions());
  return new Response(status === 204 || status === 304 ? null : body, { status, headers });
}

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
  // A callbackUrl next-auth refuses would be its 500 "server configuration" page: a 400 that says why instead.
  const url = new URL(req.url);
  const callbackUrl = url.searchParams.get("callbackUrl");
  if (callbackUrl !== null && !isCallbackUrl(callbackUrl, url)) return errorBody(400, "callbackUrl must be a path on this site (/…) or an http(s) URL");
  const res = await nextAuth(req, ctx);
  const type = res.headers.get("content-type") ?? "";
  if (res.status >= 400 && res.status < 500 && !type.includes("json") && !type.includes("html"))
    return errorBody(res.status, (await res.text()).replace(/^Error: /, "") || "bad request");
  return res;
}

/** Methods next-auth does not serve: 405 with `Allow` in the dashboard API's error body. */
function notAllowed(req: Request): Promise<Response> {
  return Promise.resolve(errorBody(405, `${req.method} is not supported`, { allow: "GET, HEAD, POST" }));
}

export { handler as GET, handler as POST, notAllowed as PUT, notAllowed as PATCH, notAllowed as DELETE };
