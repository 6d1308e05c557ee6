import type { Metadata } from "next";
import { Suspense } from "react";
import { IgnoredEventsExplorer } from "@/components/dashboard/DiagnoseExplorers";
import { requireUser } from "@/lib/dashboard/require-user";

export const metadata: Metadata = { title: "Ignored events" };

export default async function IgnoredEventsPage() {
  await requireUser();
  return (
    <Suspense>
      <IgnoredEventsExplorer />
    </Suspense>
  );
}
