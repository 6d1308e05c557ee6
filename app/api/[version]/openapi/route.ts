// GET /api/2025-07-01/openapi - the gateway API's OpenAPI 3.1 document (public, like the real product's)
import { gatewayOpenApi } from "@/lib/gateway/openapi/document";

export const dynamic = "force-dynamic";

export async function GET(_req: Request, ctx: { params: Promise<{ version: string }> }): Promise<Response> {
  const { version } = await ctx.params;
  if (version !== "2025-07-01") {
    return Response.json(
      { handled: true, status: 404, message: "Not Found", code: "NOT_FOUND", data: { message: "The OpenAPI document is published for 2025-07-01" } },
      { status: 404 },
    );
  }
  return Response.json(gatewayOpenApi());
}
