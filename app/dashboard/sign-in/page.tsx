import type { Metadata } from "next";
import { getServerSession } from "next-auth";
import { redirect } from "next/navigation";
import { SignInForm } from "@/components/dashboard/SignInForm";
import { authOptions } from "@/lib/dashboard/auth";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Sign in", robots: { index: false } };

export default async function SignInPage({ searchParams }: { searchParams: Promise<{ error?: string }> }) {
  const session = (await getServerSession(authOptions())) as { user?: { teamId?: string } } | null;
  if (session?.user?.teamId) redirect("/dashboard");
  const { error } = await searchParams;
  return <SignInForm mode="password" initialError={typeof error === "string" ? error : null} />;
}
