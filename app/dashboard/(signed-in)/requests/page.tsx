import type { Metadata } from "next";
import { Suspense } from "react";
import { RequestsExplorer } from "@/components/dashboard/OtherExplorers";
import { requireUser } from "@/lib/dashboard/require-user";

export const metadata: Metadata = { title: "Requests" };

export default async function Page() {
  await requireUser();
  return (
    <Suspense>
      <RequestsExplorer />
    </Suspense>
  );
}
