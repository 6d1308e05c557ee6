// /e/{id}[/{path…}] - ingestion under plain `next dev`. In production and `npm run dev` the custom
// server (server.ts) answers these paths itself, through the same `ingest` function.
import { getConfig } from "@/lib/config";
import { readRequestBody } from "@/lib/http/body";
import { clientIpOf, isSecure } from "@/lib/http/client-ip";
import type { HttpRequest } from "@/lib/http/types";
import { ingest } from "@/lib/ingest/ingest";
import { publish } from "@/lib/gateway/publish";

export const dynamic = "force-dynamic";

async function handle(req: Request, ctx: { params: Promise<{ id: string; path?: string[] }> }): Promise<Response> {
  const { id, path } = await ctx.params;
  const config = getConfig();
  const url = new URL(req.url);
  const headers: Record<string, string> = {};
  req.headers.forEach((value, name) => (headers[name] = value));
  const read = await readRequestBody(req, { maxBytes: config.ingestMaxBodyBytes, countAll: true });
  const request: HttpRequest = {
    method: req.method,
    pathname: path?.length ? `/${path.map(encodeURIComponent).join("/")}` : "/",
    query: url.search.slice(1),
    headers,
    body: read.body,
    bodySize: read.size,
    bodyTooLarge: read.tooLarge,
    clientIp: clientIpOf(undefined, headers, config.trustProxy),
    secure: isSecure(url.protocol === "https:", headers, config.trustProxy),
  };
  const res = id === "v1" && request.pathname === "/publish" ? await publish(request) : await ingest(id, request);
  return new Response(res.body === undefined ? null : new Uint8Array(Buffer.from(res.body)), {
    status: res.status,
    headers: res.headers as Record<string, string>,
  });
}

export { handle as GET, handle as POST, handle as PUT, handle as PATCH, handle as DELETE, handle as HEAD, handle as OPTIONS };
