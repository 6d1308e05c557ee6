// Any other /api/{version}/… path: the gateway's 404 body (after authentication, like every endpoint).
import { gatewayRoute } from "@/lib/gateway/http";
import { AppError } from "@/lib/http/errors";

export const dynamic = "force-dynamic";
const notFound = gatewayRoute<undefined, { rest: string[] }>({}, ({ url }) => Promise.reject(new AppError("NOT_FOUND", `No endpoint ${url.pathname}`)));
export { notFound as GET, notFound as POST, notFound as PUT, notFound as PATCH, notFound as DELETE };
