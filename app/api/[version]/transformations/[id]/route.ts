import { deleteTransformationRoute, getTransformationRoute, updateTransformationRoute } from "@/lib/gateway/transformations/routes";

export const dynamic = "force-dynamic";
export { getTransformationRoute as GET, updateTransformationRoute as PUT, deleteTransformationRoute as DELETE };
