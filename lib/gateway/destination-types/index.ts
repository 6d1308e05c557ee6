/**
 * The gateway's destination types: the one registration list (docs/destination-types.md "Adding a
 * destination type"). The API's `type` enum (lib/gateway/destinations/schemas.ts DESTINATION_TYPES) is
 * built from its names; a unit test checks the API accepts and documents exactly these.
 */
import { DestinationTypeRegistry } from "@/lib/delivery/destination-types";
import { cli } from "@/lib/gateway/destination-types/cli";
import { http } from "@/lib/gateway/destination-types/http";
import { mockApi } from "@/lib/gateway/destination-types/mock-api";
import type { GatewayDestinationType } from "@/lib/gateway/destination-types/type";

/** Every gateway destination type, by name. */
export const GATEWAY_DESTINATION_TYPES = new DestinationTypeRegistry<GatewayDestinationType>("gateway").register(http, cli, mockApi);
