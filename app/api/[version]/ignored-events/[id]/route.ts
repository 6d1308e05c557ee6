import { getIgnoredEventRoute } from "@/lib/gateway/events/routes";

export const dynamic = "force-dynamic";
export { getIgnoredEventRoute as GET };
