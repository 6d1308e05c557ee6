import { headers } from "next/headers";
import { redirect } from "next/navigation";
import { type SessionUser, userFromCookieHeader } from "@/lib/teams/dashboard-session";

/**
 * The signed-in user of a dashboard page (server components), or a redirect to the sign-in page. Reads
 * the session as the APIs do (lib/teams/dashboard-session.ts userFromCookieHeader: the app's one cookie parser,
 * the JWT, and its server-side session row).
 */
export async function requireUser(): Promise<SessionUser> {
  const user = await userFromCookieHeader((await headers()).get("cookie"));
  if (!user) redirect("/dashboard/sign-in");
  return user;
}
