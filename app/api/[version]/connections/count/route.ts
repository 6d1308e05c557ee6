import { countConnectionsRoute } from "@/lib/gateway/connections/routes";

export const dynamic = "force-dynamic";
export { countConnectionsRoute as GET };
