import { listRequestsRoute } from "@/lib/gateway/requests/routes";

export const dynamic = "force-dynamic";
export { listRequestsRoute as GET };
