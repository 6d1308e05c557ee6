import { listRequestIgnoredEventsRoute } from "@/lib/gateway/events/routes";

export const dynamic = "force-dynamic";
export { listRequestIgnoredEventsRoute as GET };
