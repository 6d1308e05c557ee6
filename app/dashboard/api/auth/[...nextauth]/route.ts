import NextAuth from "next-auth";
import { authOptions } from "@/lib/dashboard/auth";
import { parseCookies } from "@/lib/http/cookies";

export const dynamic = "force-dynamic";

type ApiRequest = { query: Record<string, string | string[]>; body: Record<string, string> | undefined; cookies: Record<string, string>; headers: Record<string, string>; method: string };

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
 * next-auth's endpoints of the dashboard (sign-in, sign-out, session, csrf; lib/dashboard/auth.ts), called
 * through next-auth's documented `NextAuth(req, res, options)` form so that its cookies come from the app's
 * one cookie parser (lib/http/cookies.ts; docs/architecture.md "Cookies") rather than from Next's.
 */
async function handler(req: Request, ctx: { params: Promise<{ nextauth: string[] }> }): Promise<Response> {
  const url = new URL(req.url);
  const apiReq: ApiRequest = {
    query: { ...Object.fromEntries(url.searchParams), nextauth: (await ctx.params).nextauth ?? [] },
    body: await bodyOf(req),
    cookies: Object.fromEntries(parseCookies(req.headers.get("cookie"))),
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
      body = typeof value === "string" || value === undefined || value === null ? ((value as string | null | undefined) ?? null) : JSON.stringify(value);
    },
  };
  await (NextAuth as unknown as (req: ApiRequest, res: unknown, options: unknown) => Promise<void>)(apiReq, res, authOptions());
  return new Response(status === 204 || status === 304 ? null : body, { status, headers });
}

export { handler as GET, handler as POST };
