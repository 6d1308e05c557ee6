"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { api, authPost } from "@/components/dashboard/api";
import { prefetchExplorer } from "@/components/dashboard/explorer-query";
import { Button } from "@/components/ui/Button";
import { LogoMark } from "@/components/ui/Logo";
import { cx } from "@/components/ui/cx";

const NAV = [
  { href: "/dashboard", label: "Overview" },
  // The explorers' pages are prefetched whole (their data is fetched in the browser, so the page itself is the
  // same for every visit): a click mounts the explorer at once and only its list call remains (docs/benchmarks.md "Explorers").
  { href: "/dashboard/requests", label: "Requests", prefetch: true },
  { href: "/dashboard/events", label: "Events", prefetch: true },
  { href: "/dashboard/attempts", label: "Attempts", prefetch: true },
  { href: "/dashboard/ignored-events", label: "Ignored events" },
  { href: "/dashboard/executions", label: "Transformation runs" },
  { href: "/dashboard/bulk", label: "Bulk operations" },
  { href: "/dashboard/connections", label: "Connections" },
  { href: "/dashboard/issues", label: "Issues" },
  { href: "/dashboard/settings", label: "Settings" },
  { href: "/dashboard/outbound", label: "Outbound", operator: true },
  { href: "/dashboard/redrive", label: "Outbound redrive", operator: true },
  { href: "/dashboard/teams", label: "Teams", operator: true },
  { href: "/dashboard/system", label: "System", operator: true },
];

/**
 * The signed-in dashboard's frame: a sidebar of pages (a menu button opens it below the `md` width), the
 * user's email and Sign out, and a skip link to the content. Outbound, Teams and System are listed for
 * operators only (docs/operations.md "Teams and users"). Issues shows the number of open ones (docs/dashboard.md "Issues").
 */
export function Shell({ email, operator, children }: { email: string; operator: boolean; children: React.ReactNode }) {
  const pathname = usePathname();
  // The menu is open on the page it was opened on: navigating closes it.
  const [openOn, setOpenOn] = useState<string | null>(null);
  const open = openOn === pathname;
  const [signingOut, setSigningOut] = useState(false);
  // The same query (and cache) as the Overview's "Open issues" card.
  // An explorer's rows are asked for when the pointer or focus reaches its link, so they arrive while the page mounts.
  const queryClient = useQueryClient();
  const openIssues = useQuery({ queryKey: ["issues-count"], queryFn: () => api<{ count: number }>("issues/count?status=OPENED"), refetchInterval: 30_000 });
  const active = (href: string) => (href === "/dashboard" ? pathname === href : pathname === href || pathname.startsWith(`${href}/`));

  async function signOut() {
    setSigningOut(true);
    await authPost("signout", {}).catch(() => null);
    window.location.assign("/dashboard/sign-in");
  }

  return (
    <div className="min-h-dvh md:flex">
      <a href="#content" className="sr-only z-50 rounded-md bg-white px-3 py-2 text-sm focus:not-sr-only focus:fixed focus:top-2 focus:left-2 dark:bg-zinc-900">
        Skip to content
      </a>
      <header className="flex items-center justify-between border-b border-zinc-200 bg-white/90 px-4 py-2.5 backdrop-blur md:hidden dark:border-zinc-800 dark:bg-zinc-950/90">
        <Link href="/dashboard" className="inline-flex items-center gap-2 font-semibold">
          <LogoMark className="size-6" /> Hookyard
        </Link>
        <Button
          variant="ghost"
          size="sm"
          aria-expanded={open}
          aria-controls="dashboard-nav"
          onClick={() => setOpenOn(open ? null : pathname)}
          data-testid="nav-toggle"
        >
          <svg viewBox="0 0 24 24" className="size-5" fill="none" stroke="currentColor" strokeWidth={2} aria-hidden>
            {open ? <path d="M6 6l12 12M18 6 6 18" /> : <path d="M4 7h16M4 12h16M4 17h16" />}
          </svg>
          Menu
        </Button>
      </header>
      <aside
        id="dashboard-nav"
        className={cx(
          "border-zinc-200 bg-zinc-50 md:flex md:min-h-dvh md:w-56 md:shrink-0 md:flex-col md:border-r dark:border-zinc-800 dark:bg-zinc-900/40",
          open ? "block border-b" : "hidden",
        )}
      >
        <Link href="/dashboard" className="hidden items-center gap-2 px-5 pt-5 pb-4 font-semibold tracking-tight md:inline-flex">
          <LogoMark className="size-7" /> Hookyard
        </Link>
        <nav aria-label="Dashboard" className="flex flex-col gap-0.5 px-3 py-3 md:py-0">
          {NAV.filter((item) => operator || !item.operator).map((item) => (
            <Link
              key={item.href}
              href={item.href}
              prefetch={"prefetch" in item ? item.prefetch : undefined}
              onPointerEnter={() => prefetchExplorer(queryClient, item.href)}
              onFocus={() => prefetchExplorer(queryClient, item.href)}
              aria-current={active(item.href) ? "page" : undefined}
              className={cx(
                "rounded-md px-3 py-2 text-sm font-medium focus-visible:outline-2 focus-visible:outline-indigo-600",
                active(item.href)
                  ? "bg-indigo-50 text-indigo-700 dark:bg-indigo-500/15 dark:text-indigo-200"
                  : "text-zinc-700 hover:bg-zinc-100 dark:text-zinc-300 dark:hover:bg-zinc-800",
              )}
            >
              {item.label}
              {item.href === "/dashboard/issues" && (openIssues.data?.count ?? 0) > 0 && (
                <span
                  className="ml-2 inline-flex min-w-5 justify-center rounded-full bg-rose-600 px-1.5 text-xs font-semibold text-white tabular-nums dark:bg-rose-500 dark:text-zinc-950"
                  data-testid="nav-open-issues"
                >
                  <span className="sr-only">open issues: </span>
                  {openIssues.data!.count}
                </span>
              )}
            </Link>
          ))}
        </nav>
        <div className="mt-auto border-t border-zinc-200 px-5 py-4 text-sm dark:border-zinc-800">
          <p className="truncate text-zinc-600 dark:text-zinc-400" title={email} data-testid="signed-in-as">
            {email}
          </p>
          <Button variant="secondary" size="sm" className="mt-2" onClick={() => void signOut()} disabled={signingOut} data-testid="sign-out">
            {signingOut ? "Signing out…" : "Sign out"}
          </Button>
        </div>
      </aside>
      <main id="content" className="min-w-0 flex-1 px-4 py-6 sm:px-6 lg:px-8">
        <div className="mx-auto max-w-6xl">{children}</div>
      </main>
    </div>
  );
}
