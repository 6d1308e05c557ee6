import { getRequestRawBodyRoute } from "@/lib/gateway/requests/routes";

export const dynamic = "force-dynamic";
export { getRequestRawBodyRoute as GET };
