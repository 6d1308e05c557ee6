"use client";
/**
 * Browser-side calls of the outbound API for the tenant portal (docs/portal.md#how-it-is-built): same-origin fetches
 * of `/outbound/api/v1/…` authenticated by the portal's httpOnly session cookie, with the CSRF header
 * (lib/outbound/auth.ts PORTAL_CSRF_HEADER) on every request, so the API uses the portal cookie even
 * in a browser also signed in to the dashboard. Errors are the shared {@link ApiError}
 * (components/ui/api-client.ts) with the outbound error body's `message`; `messages` lists the
 * validation messages of its `data`.
 */
import { useQuery } from "@tanstack/react-query";
import { createContext, useContext } from "react";
import type { DestinationTypeInfo as DestinationType } from "@/lib/outbound/destination-types";
import type { toDestination } from "@/lib/outbound/destinations";
import type { toEvent } from "@/lib/outbound/events";
import type { TransformationOutput } from "@/lib/outbound/transformation";
import { ApiError, type ApiClientOptions, createApiClient, isRecord, qs } from "@/components/ui/api-client";
import type { DeliveryState } from "@/components/ui/DeliveryStateBadges";
import type { Health } from "@/components/ui/HealthBadge";

const API_BASE = "/outbound/api/v1";
/** The portal's CSRF header (lib/outbound/auth.ts PORTAL_CSRF_HEADER). */
const CSRF_HEADER = "x-hookyard-portal";

export { ApiError, qs };

/** An outbound error body's `message` (`error` for the few answers that carry one). */
function describe(_status: number, body: unknown): string | null {
  if (!isRecord(body)) return null;
  return typeof body.message === "string" ? body.message : typeof body.error === "string" ? body.error : null;
}

/** The portal's client settings (exported for tests, which give them a base URL). */
export const PORTAL_CLIENT: ApiClientOptions = {
  url: (path) => `${API_BASE}${path}`,
  headers: { [CSRF_HEADER]: "1" },
  describe,
  fallback: (status) => `The server answered ${status}.`,
};

/** Calls `path` (after the API base) and returns its JSON; throws ApiError (status 0: the network failed). */
export const api = createApiClient(PORTAL_CLIENT);

/*
 * The API's models, from the server's own types (type-only imports: nothing of the server runs in the
 * browser). A destination's dates are ISO strings, as `toDestination` writes them.
 */
export type { DestinationTypeInfo as DestinationType, Field } from "@/lib/outbound/destination-types";
/** A destination as the outbound API reads it, with its receiver-driven limits (`delivery_state`, on reads). */
export type Destination = ReturnType<typeof toDestination> & { delivery_state?: DeliveryState; health?: Health };
export type OutboundEvent = ReturnType<typeof toEvent>;
export type { TransformationOutput };
export type Attempt = {
  id: string;
  status: "success" | "failed";
  delivered_at: string;
  code: string | null;
  attempt_number: number;
  manual: boolean;
  event_id: string;
  destination_id: string;
  latency_ms?: number;
  response_data?: { status_code?: number; body?: string; headers?: Record<string, string> } | null;
  transformation?: TransformationOutput;
  event?: OutboundEvent;
};
export type Page<T> = { models: T[]; pagination: { next: string | null; prev: string | null; limit: number } };

/**
 * The portal's tenant id and branding, given by the server layout (app/portal/layout.tsx), and what the
 * deployment lets tenants do with transformations (OUTBOUND_PORTAL_TRANSFORMATIONS; default read).
 */
export type PortalInfo = { tenantId: string; organizationName: string; transformations?: "edit" | "read" | "off" };
export const PortalContext = createContext<PortalInfo>({ tenantId: "", organizationName: "" });
export const usePortal = () => useContext(PortalContext);

/** `/tenants/{id}/destinations…` of the portal's tenant. */
export function useDestinationsPath(): string {
  return `/tenants/${encodeURIComponent(usePortal().tenantId)}/destinations`;
}

export function useDestinationTypes() {
  return useQuery({ queryKey: ["portal", "destination-types"], queryFn: () => api<DestinationType[]>("/destination-types"), staleTime: 5 * 60_000 });
}

export function useTopics() {
  return useQuery({ queryKey: ["portal", "topics"], queryFn: () => api<string[]>("/topics"), staleTime: 5 * 60_000 });
}

/** The tenant's destinations with their delivery health of the last day (`include=health`, docs/portal.md), refreshed every 30 s. */
export function useDestinations() {
  const path = useDestinationsPath();
  return useQuery({ queryKey: ["portal", "destinations"], queryFn: () => api<Destination[]>(`${path}?include=health`), refetchInterval: 30_000 });
}

export function useDestination(id: string) {
  const path = useDestinationsPath();
  return useQuery({ queryKey: ["portal", "destinations", id], queryFn: () => api<Destination>(`${path}/${encodeURIComponent(id)}`) });
}
