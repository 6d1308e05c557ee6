import type { Metadata } from "next";
import { Suspense } from "react";
import { BulkOperations } from "@/components/dashboard/BulkOperations";
import { requireUser } from "@/lib/dashboard/require-user";

export const metadata: Metadata = { title: "Bulk operations" };

export default async function BulkPage() {
  await requireUser();
  return (
    <Suspense>
      <BulkOperations />
    </Suspense>
  );
}
