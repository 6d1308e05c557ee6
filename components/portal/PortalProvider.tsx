"use client";
import { PortalContext, type PortalInfo } from "@/components/portal/api";

/** Gives the portal's client components the tenant id and branding the server layout read. */
export function PortalProvider({ value, children }: { value: PortalInfo; children: React.ReactNode }) {
  return <PortalContext value={value}>{children}</PortalContext>;
}
