import { connectionActionRoute } from "@/lib/gateway/connections/routes";

export const dynamic = "force-dynamic";
export { connectionActionRoute as PUT };
