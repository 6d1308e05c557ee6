import type { Metadata } from "next";
import { headers } from "next/headers";
import { redirect } from "next/navigation";
import { SignInForm } from "@/components/dashboard/SignInForm";
import { userFromCookieHeader } from "@/lib/teams/dashboard-session";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Sign in", robots: { index: false } };

export default async function SignInPage({ searchParams }: { searchParams: Promise<{ error?: string }> }) {
  if (await userFromCookieHeader((await headers()).get("cookie"))) redirect("/dashboard");
  const { error } = await searchParams;
  return <SignInForm mode="password" initialError={typeof error === "string" ? error : null} />;
}
