// Any other /api/{version}/… path: the gateway's 404 body (after authentication, like every endpoint).
import { gatewayRoute } from "@/lib/gateway/http";
import { GatewayError } from "@/lib/http/errors";

export const dynamic = "force-dynamic";
const notFound = gatewayRoute<undefined, { rest: string[] }>({}, ({ url }) => {
  return Promise.reject(new GatewayError(404, "NOT_FOUND", "Not Found", { message: `No endpoint ${url.pathname}` }));
});
export { notFound as GET, notFound as POST, notFound as PUT, notFound as PATCH, notFound as DELETE };
