import { countTransformationsRoute } from "@/lib/gateway/transformations/routes";

export const dynamic = "force-dynamic";
export { countTransformationsRoute as GET };
