/**
 * Next.js proxy (formerly middleware) for pages: a fresh CSP nonce per request, the page security headers
 * of lib/http/security-headers.ts on the answer, and the policy and nonce on the request so Next.js puts
 * the nonce on its own scripts (docs/security-headers.md). Every page renders dynamically (app/layout.tsx),
 * as a nonce requires. API routes, static files and server.ts's own routes are not matched: they keep the
 * API headers server.ts sets on every answer.
 */
import { NextResponse, type NextRequest } from "next/server";
import { NONCE_HEADER, newNonce, pageSecurityHeaders, pageSurfaceOf } from "@/lib/http/security-headers";

/**
 * Runs before every page: a fresh nonce, the page's security headers on the answer (surface by path:
 * portal or other page), and the policy plus `x-nonce` on the request for Next.js and route handlers.
 */
export function proxy(request: NextRequest) {
  const nonce = newNonce();
  const headers = pageSecurityHeaders(nonce, pageSurfaceOf(request.nextUrl.pathname));
  const requestHeaders = new Headers(request.headers);
  requestHeaders.set(NONCE_HEADER, nonce);
  requestHeaders.set("content-security-policy", headers["content-security-policy"]);
  const response = NextResponse.next({ request: { headers: requestHeaders } });
  for (const [name, value] of Object.entries(headers)) response.headers.set(name, value);
  return response;
}

export const config = {
  // Pages only: not the APIs (gateway, outbound, next-auth, ingestion in dev), nor built files and the favicon.
  matcher: ["/((?!api/|outbound/|dashboard/api/|e/|cli/|_next/static/|_next/image|favicon\\.svg$).*)"],
};
