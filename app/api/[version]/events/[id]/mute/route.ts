import { muteEventRoute } from "@/lib/gateway/events/routes";

export const dynamic = "force-dynamic";
export { muteEventRoute as PUT };
