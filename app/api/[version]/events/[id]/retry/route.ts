import { retryEventRoute } from "@/lib/gateway/events/routes";

export const dynamic = "force-dynamic";
export { retryEventRoute as POST };
