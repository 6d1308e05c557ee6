import { createSourceRoute, listSourcesRoute, upsertSourceRoute } from "@/lib/gateway/sources/routes";

export const dynamic = "force-dynamic";
export { listSourcesRoute as GET, createSourceRoute as POST, upsertSourceRoute as PUT };
