import { retryRequestRoute } from "@/lib/gateway/events/routes";

export const dynamic = "force-dynamic";
export { retryRequestRoute as POST };
