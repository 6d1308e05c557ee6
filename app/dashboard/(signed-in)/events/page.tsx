import type { Metadata } from "next";
import { Suspense } from "react";
import { EventsExplorer } from "@/components/dashboard/EventsExplorer";
import { requireUser } from "@/lib/dashboard/require-user";

export const metadata: Metadata = { title: "Events" };

export default async function EventsPage() {
  await requireUser();
  return (
    <Suspense>
      <EventsExplorer />
    </Suspense>
  );
}
