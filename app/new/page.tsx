import type { Metadata } from "next";
import { Logo } from "@/components/ui/Logo";
import { NewTestUrl } from "@/components/console/NewTestUrl";
import { findSourceType } from "@/lib/gateway/sources/types";

export const dynamic = "force-dynamic";

export const metadata: Metadata = { title: "New test URL", robots: { index: false, follow: false } };

/** `?type=` when it names a supported type that needs no credentials; anything else is ignored. */
function usableType(value: string | string[] | undefined): string | undefined {
  if (typeof value !== "string" || value.length === 0 || value.length > 64) return undefined;
  const def = findSourceType(value.toUpperCase());
  return def && !def.requiresAuth && !def.acceptedUntil ? def.type : undefined;
}

export default async function NewPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const { type } = await searchParams;
  return (
    <div className="flex min-h-dvh flex-col">
      <header className="mx-auto flex h-16 w-full max-w-5xl items-center px-4 sm:px-6">
        <Logo />
      </header>
      <main className="flex flex-1 items-center justify-center px-4 pb-24">
        <NewTestUrl type={usableType(type)} />
      </main>
    </div>
  );
}
