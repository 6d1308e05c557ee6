import NextAuth from "next-auth";
import { authOptions } from "@/lib/dashboard/auth";

export const dynamic = "force-dynamic";

/** next-auth's endpoints of the dashboard (sign-in, sign-out, session, csrf), lib/dashboard/auth.ts. */
async function handler(req: Request, ctx: { params: Promise<{ nextauth: string[] }> }): Promise<Response> {
  return (NextAuth(authOptions()) as unknown as (req: Request, ctx: unknown) => Promise<Response>)(req, ctx);
}

export { handler as GET, handler as POST };
