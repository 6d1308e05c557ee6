import { ButtonLink } from "@/components/ui/Button";
import { LogoMark } from "@/components/ui/Logo";

export const metadata = { title: "Not found" };

export default function NotFound() {
  return (
    <main className="flex min-h-dvh flex-col items-center justify-center px-6 text-center">
      <LogoMark className="size-12 opacity-90" />
      <p className="mt-8 font-mono text-sm font-semibold text-indigo-600 dark:text-indigo-400">404</p>
      <h1 className="mt-2 text-2xl font-semibold tracking-tight text-zinc-900 sm:text-3xl dark:text-zinc-50">This hook caught nothing</h1>
      <p className="mt-3 max-w-md text-sm text-zinc-600 dark:text-zinc-400">
        There is no test URL at this address. It may have been mistyped, or it never existed. Creating a new one takes a single click.
      </p>
      <ButtonLink href="/" variant="primary" className="mt-8">
        Back to Hookyard
      </ButtonLink>
    </main>
  );
}
