import { countSourcesRoute } from "@/lib/gateway/sources/routes";

export const dynamic = "force-dynamic";
export { countSourcesRoute as GET };
