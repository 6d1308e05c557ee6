import { getRequestRoute } from "@/lib/gateway/requests/routes";

export const dynamic = "force-dynamic";
export { getRequestRoute as GET };
