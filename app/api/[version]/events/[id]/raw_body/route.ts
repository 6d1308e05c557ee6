import { getEventRawBodyRoute } from "@/lib/gateway/events/routes";

export const dynamic = "force-dynamic";
export { getEventRawBodyRoute as GET };
