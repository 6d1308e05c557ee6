import { countDestinationsRoute } from "@/lib/gateway/destinations/routes";

export const dynamic = "force-dynamic";
export { countDestinationsRoute as GET };
