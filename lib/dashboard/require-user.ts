import { getServerSession } from "next-auth";
import { redirect } from "next/navigation";
import { authOptions } from "@/lib/dashboard/auth";
import type { SessionUser } from "@/lib/dashboard/session";

/** The signed-in user of a dashboard page (server components), or a redirect to the sign-in page. */
export async function requireUser(): Promise<SessionUser> {
  const session = (await getServerSession(authOptions())) as { user?: SessionUser } | null;
  if (!session?.user?.teamId) redirect("/dashboard/sign-in");
  return session.user;
}
