import { listRequestEventsRoute } from "@/lib/gateway/events/routes";

export const dynamic = "force-dynamic";
export { listRequestEventsRoute as GET };
