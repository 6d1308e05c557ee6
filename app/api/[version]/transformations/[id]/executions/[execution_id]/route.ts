import { getExecutionRoute } from "@/lib/gateway/events/routes";

export const dynamic = "force-dynamic";
export { getExecutionRoute as GET };
