"use client";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { useState } from "react";
import { ApiError, PortalContext, type PortalInfo } from "@/components/portal/api";

/**
 * Gives the portal's client components the tenant id and branding the server layout read, and a query
 * client of their own: an answer in the 4xx range (an ended session, a missing destination) is shown at
 * once, not retried.
 */
export function PortalProvider({ value, children }: { value: PortalInfo; children: React.ReactNode }) {
  const [client] = useState(
    () =>
      new QueryClient({
        defaultOptions: {
          queries: {
            staleTime: 5_000,
            refetchOnWindowFocus: true,
            retry: (n, err) => n < 1 && !(err instanceof ApiError && err.status >= 400 && err.status < 500),
          },
        },
      }),
  );
  return (
    <QueryClientProvider client={client}>
      <PortalContext value={value}>{children}</PortalContext>
    </QueryClientProvider>
  );
}
