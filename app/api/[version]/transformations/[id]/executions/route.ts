import { listExecutionsRoute } from "@/lib/gateway/events/routes";

export const dynamic = "force-dynamic";
export { listExecutionsRoute as GET };
