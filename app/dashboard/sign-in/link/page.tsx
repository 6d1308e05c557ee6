import type { Metadata } from "next";
import { SignInForm } from "@/components/dashboard/SignInForm";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Choose your password", robots: { index: false }, referrer: "no-referrer" };

/** The page of a one-time sign-in link (`npm run users`, first start): sets a password and signs in. */
export default async function SignInLinkPage({ searchParams }: { searchParams: Promise<{ token?: string }> }) {
  const { token } = await searchParams;
  return <SignInForm mode="link" token={typeof token === "string" ? token : ""} />;
}
