import type { Metadata } from "next";
import { Shell } from "@/components/dashboard/Shell";
import { requireUser } from "@/lib/dashboard/require-user";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: { default: "Dashboard", template: "%s · Dashboard · Hookyard" }, robots: { index: false } };

/** Every signed-in page: refuses an anonymous visitor (redirect to sign-in) before anything renders. */
export default async function SignedInLayout({ children }: { children: React.ReactNode }) {
  const user = await requireUser();
  return (
    <Shell email={user.email} operator={user.operator}>
      {children}
    </Shell>
  );
}
