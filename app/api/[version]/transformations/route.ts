import { createTransformationRoute, listTransformationsRoute, upsertTransformationRoute } from "@/lib/gateway/transformations/routes";

export const dynamic = "force-dynamic";
export { listTransformationsRoute as GET, createTransformationRoute as POST, upsertTransformationRoute as PUT };
