import type { Metadata } from "next";
import { Suspense } from "react";
import { AttemptsExplorer } from "@/components/dashboard/OtherExplorers";
import { requireUser } from "@/lib/dashboard/require-user";

export const metadata: Metadata = { title: "Attempts" };

export default async function Page() {
  await requireUser();
  return (
    <Suspense>
      <AttemptsExplorer />
    </Suspense>
  );
}
