import { listAttemptsRoute } from "@/lib/gateway/events/routes";

export const dynamic = "force-dynamic";
export { listAttemptsRoute as GET };
