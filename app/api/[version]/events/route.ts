import { listEventsRoute } from "@/lib/gateway/events/routes";

export const dynamic = "force-dynamic";
export { listEventsRoute as GET };
