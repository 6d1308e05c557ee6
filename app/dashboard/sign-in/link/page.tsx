import type { Metadata } from "next";
import { SignInForm } from "@/components/dashboard/SignInForm";
import { signInTokenAccount } from "@/lib/dashboard/users";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Choose your password", robots: { index: false }, referrer: "no-referrer" };

/**
 * The page of a one-time sign-in link (`npm run users`, first start): names the account it is for (email
 * and team; reading it does not use the link), sets a password and signs in.
 */
export default async function SignInLinkPage({ searchParams }: { searchParams: Promise<{ token?: string }> }) {
  const { token } = await searchParams;
  const value = typeof token === "string" ? token : "";
  return <SignInForm mode="link" token={value} account={await signInTokenAccount(value)} />;
}
