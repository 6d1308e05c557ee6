import { getAttemptRoute } from "@/lib/gateway/events/routes";

export const dynamic = "force-dynamic";
export { getAttemptRoute as GET };
