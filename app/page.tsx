import Link from "next/link";
import { headers } from "next/headers";
import { CreateTestUrlForm, type SourceTypeOption } from "@/components/console/CreateTestUrl";
import { Badge } from "@/components/ui/Badge";
import { buttonClasses } from "@/components/ui/Button";
import { Card } from "@/components/ui/Card";
import { BoltIcon, ShieldIcon, TerminalIcon } from "@/components/ui/icons";
import { Logo } from "@/components/ui/Logo";
import { WorkspaceList } from "@/components/console/WorkspaceList";
import { type ConsoleSource, consoleSources } from "@/components/console/api";
import { getWorkspace } from "@/lib/console/workspace";
import { listSourceTypes } from "@/lib/gateway/sources/types";

export const dynamic = "force-dynamic";

/** The visitor's sources; none when there is no session (or the lookup fails: the page still works). */
async function loadSources(): Promise<ConsoleSource[]> {
  try {
    const workspace = await getWorkspace({ cookieHeader: (await headers()).get("cookie") });
    return consoleSources(workspace?.sources ?? []);
  } catch (err) {
    console.error("[console ui] could not load the workspace:", err);
    return [];
  }
}

const FEATURES = [
  {
    icon: BoltIcon,
    title: "Live, instantly",
    text: "Every request shows up the moment it lands: method, headers, query and body, pretty-printed.",
  },
  {
    icon: TerminalIcon,
    title: "Forward to localhost",
    text: "Use the CLI command on your test URL to replay captured webhooks against your local server.",
  },
  {
    icon: ShieldIcon,
    title: "No account needed",
    text: "One click gives you an unguessable URL. Anyone holding it can read what it captures, so keep secrets out.",
  },
];

export default async function HomePage() {
  const sources = await loadSources();
  const types: SourceTypeOption[] = listSourceTypes()
    .filter((t) => !t.requiresAuth && !t.acceptedUntil)
    .map((t) => ({ type: t.type, label: t.label }));

  return (
    <div className="relative flex min-h-dvh flex-col overflow-x-hidden">
      <div
        aria-hidden
        className="pointer-events-none absolute inset-x-0 top-0 -z-10 h-[36rem] bg-[radial-gradient(60%_50%_at_50%_0%,rgba(99,102,241,0.14),transparent_70%)] dark:bg-[radial-gradient(60%_50%_at_50%_0%,rgba(129,140,248,0.16),transparent_70%)]"
      />
      <header className="mx-auto flex h-16 w-full max-w-5xl items-center justify-between px-4 sm:px-6">
        <Logo />
        <nav aria-label="Hookyard" className="flex items-center gap-1">
          <a href="/openapi.json" className={buttonClasses("ghost")}>
            API
          </a>
          {/* The way in for an operator (docs/console.md "Home"): the gateway's signed-in dashboard. */}
          <Link href="/dashboard" className={buttonClasses("secondary")} data-testid="dashboard-link">
            Dashboard
          </Link>
        </nav>
      </header>

      <main className="mx-auto flex w-full max-w-5xl flex-1 flex-col px-4 sm:px-6">
        <section className="flex flex-col items-start pt-12 pb-14 sm:pt-20">
          <Badge tone="accent" className="mb-5">
            <span className="size-1.5 rounded-full bg-indigo-500" aria-hidden />
            Webhook inspector
          </Badge>
          <h1 className="max-w-2xl text-4xl font-semibold tracking-tight text-balance text-zinc-900 sm:text-5xl dark:text-zinc-50">
            <span className="block">Catch every webhook.</span>
            <span className="block text-zinc-500 dark:text-zinc-400">See every byte.</span>
          </h1>
          <p className="mt-4 max-w-xl text-base text-pretty text-zinc-600 sm:text-lg dark:text-zinc-400">
            Get a disposable URL, point any service at it, and watch requests arrive in real time. No sign-up.
          </p>
          <div className="mt-8 w-full max-w-xl">
            <CreateTestUrlForm types={types} />
          </div>
        </section>

        {sources.length > 0 && (
          <div className="mb-14">
            <WorkspaceList sources={sources} />
          </div>
        )}

        <section aria-label="Features" className="mb-16 grid gap-4 sm:grid-cols-3">
          {FEATURES.map(({ icon: Icon, title, text }) => (
            <Card key={title} bodyClassName="p-5">
              <span className="flex size-9 items-center justify-center rounded-lg bg-indigo-50 text-indigo-600 dark:bg-indigo-500/10 dark:text-indigo-300">
                <Icon className="size-5" />
              </span>
              <h2 className="mt-4 text-sm font-semibold text-zinc-900 dark:text-zinc-100">{title}</h2>
              <p className="mt-1.5 text-sm text-zinc-600 dark:text-zinc-400">{text}</p>
            </Card>
          ))}
        </section>
      </main>

      <footer className="border-t border-zinc-200 py-6 text-center text-xs text-zinc-600 dark:border-zinc-800 dark:text-zinc-400">
        Hookyard · open-source webhook platform ·{" "}
        <Link href="/dashboard" className="underline underline-offset-2 hover:text-zinc-900 dark:hover:text-zinc-100">
          Operators: sign in to the dashboard
        </Link>
      </footer>
    </div>
  );
}
