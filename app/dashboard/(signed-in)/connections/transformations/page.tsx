import type { Metadata } from "next";
import { TransformationEditor } from "@/components/dashboard/pages/TransformationEditor";
import { requireUser } from "@/lib/dashboard/require-user";

export const metadata: Metadata = { title: "Transformations" };

export default async function Page() {
  await requireUser();
  return <TransformationEditor />;
}
