import type { Metadata } from "next";
import { Suspense } from "react";
import { ExecutionsExplorer } from "@/components/dashboard/DiagnoseExplorers";
import { requireUser } from "@/lib/dashboard/require-user";

export const metadata: Metadata = { title: "Transformation runs" };

export default async function ExecutionsPage() {
  await requireUser();
  return (
    <Suspense>
      <ExecutionsExplorer />
    </Suspense>
  );
}
