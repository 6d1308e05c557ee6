import { sourceActionRoute } from "@/lib/gateway/sources/routes";

export const dynamic = "force-dynamic";
export { sourceActionRoute as PUT };
