"use client";
/**
 * Browser-side calls of the outbound API for the tenant portal (docs/portal.md#how-it-is-built): same-origin fetches
 * of `/outbound/api/v1/…` authenticated by the portal's httpOnly session cookie, with the CSRF header
 * (lib/portal/portal.ts PORTAL_CSRF_HEADER) on every request, so the API uses the portal cookie even
 * in a browser also signed in to the dashboard. Errors become {@link ApiError} with the
 * outbound error body's `status`, `message` and `data` (validation: an array of messages).
 */
import { useQuery } from "@tanstack/react-query";
import { createContext, useContext } from "react";

export const API_BASE = "/outbound/api/v1";
const CSRF_HEADER = "x-hookyard-portal";

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
  /** Validation messages (422 `data`), else []. */
  get messages(): string[] {
    return Array.isArray(this.data) ? this.data.filter((m): m is string => typeof m === "string") : [];
  }
}

/** Calls `path` (after the API base) and returns its JSON; throws ApiError (status 0: the network failed). */
export async function api<T>(path: string, init: { method?: string; body?: unknown } = {}): Promise<T> {
  const method = init.method ?? "GET";
  let res: Response;
  try {
    res = await fetch(`${API_BASE}${path}`, {
      method,
      credentials: "same-origin",
      cache: "no-store",
      headers: {
        accept: "application/json",
        [CSRF_HEADER]: "1",
        ...(init.body !== undefined ? { "content-type": "application/json" } : {}),
      },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
  } catch {
    throw new ApiError(0, "Could not reach the server. Check your connection and try again.");
  }
  const text = await res.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  if (!res.ok) {
    const body = (json ?? {}) as { message?: string; data?: unknown; error?: string };
    throw new ApiError(res.status, body.message ?? body.error ?? `The server answered ${res.status}.`, body.data);
  }
  return json as T;
}

/** A query string from pairs (repeated keys allowed), `?` included when not empty. */
export function qs(pairs: [string, string | undefined][]): string {
  const p = new URLSearchParams();
  for (const [k, v] of pairs) if (v !== undefined) p.append(k, v);
  const s = p.toString();
  return s ? `?${s}` : "";
}

export type Field = {
  key: string;
  type: "text" | "checkbox" | "key_value_map" | "select";
  label: string;
  description: string;
  required: boolean;
  default?: string;
  sensitive?: boolean;
  pattern?: string;
  options?: { label: string; value: string }[];
};
export type DestinationType = { type: string; label: string; description: string; icon: string; instructions: string; config_fields: Field[]; credential_fields: Field[] };
export type Destination = {
  id: string; tenant_id: string; type: string; topics: string[]; config: Record<string, string>; credentials: Record<string, string>;
  created_at: string; updated_at: string; disabled_at: string | null; target: string;
};
export type OutboundEvent = { id: string; topic: string; time: string; eligible_for_retry: boolean; metadata: Record<string, string>; data?: unknown };
export type Attempt = {
  id: string; status: "success" | "failed"; delivered_at: string; code: string | null; attempt_number: number; manual: boolean; event_id: string; destination_id: string;
  latency_ms?: number; response_data?: { status_code?: number; body?: string; headers?: Record<string, string> } | null; event?: OutboundEvent;
};
export type Page<T> = { models: T[]; pagination: { next: string | null; prev: string | null; limit: number } };

/** The portal's tenant id and branding, given by the server layout (app/portal/layout.tsx). */
export type PortalInfo = { tenantId: string; organizationName: string };
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

export function useDestinations() {
  const path = useDestinationsPath();
  return useQuery({ queryKey: ["portal", "destinations"], queryFn: () => api<Destination[]>(path) });
}

export function useDestination(id: string) {
  const path = useDestinationsPath();
  return useQuery({ queryKey: ["portal", "destinations", id], queryFn: () => api<Destination>(`${path}/${encodeURIComponent(id)}`) });
}
