import { getEventRoute } from "@/lib/gateway/events/routes";

export const dynamic = "force-dynamic";
export { getEventRoute as GET };
