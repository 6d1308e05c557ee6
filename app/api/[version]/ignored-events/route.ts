import { listIgnoredEventsRoute } from "@/lib/gateway/events/routes";

export const dynamic = "force-dynamic";
export { listIgnoredEventsRoute as GET };
