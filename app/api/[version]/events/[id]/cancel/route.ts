import { cancelEventRoute } from "@/lib/gateway/events/routes";

export const dynamic = "force-dynamic";
export { cancelEventRoute as PUT };
