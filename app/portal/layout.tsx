// The tenant portal's frame (docs/portal.md#look-theme-and-branding): theme (`light`/`dark` from the portal
// link, else the device's), branding (PORTAL_ORGANIZATION_NAME, PORTAL_BRAND_COLOR, PORTAL_LOGO_URL) and
// the header. The session (the tenant of the httpOnly cookie) is read on the server; pages call the
// outbound API from the browser with that cookie.
import type { Metadata } from "next";
import Link from "next/link";
import { PortalProvider } from "@/components/portal/PortalProvider";
import { portalSession } from "@/lib/portal/session";
import { outboundConfig, refreshOutboundSettings } from "@/lib/outbound/settings";

export const dynamic = "force-dynamic";

export async function generateMetadata(): Promise<Metadata> {
  const { brand } = await portalSession();
  const name = brand.organizationName ? `${brand.organizationName} · Event destinations` : "Event destinations";
  return { title: { default: name, template: `%s · ${name}` }, robots: { index: false, follow: false }, referrer: "no-referrer" };
}

export default async function PortalLayout({ children }: { children: React.ReactNode }) {
  const session = await portalSession();
  const { brand, theme } = session;
  // What tenants may do with transformations (docs/outbound.md "Transformations"); the API enforces it, the pages follow it.
  await refreshOutboundSettings().catch(() => undefined);
  const transformations = outboundConfig().portalTransformations;
  const name = brand.organizationName || "Event destinations";
  const style = {
    "--brand": brand.brandColor,
    "--brand-fg": brand.brandForeground,
    "--hy-focus": brand.brandColor,
    colorScheme: theme ?? "light dark",
  } as React.CSSProperties;
  return (
    <div
      data-portal
      data-theme={theme ?? "system"}
      className={`${theme ?? ""} min-h-dvh bg-zinc-50 text-zinc-900 dark:bg-zinc-950 dark:text-zinc-100`}
      style={style}
    >
      <a
        href="#main"
        className="sr-only z-50 rounded-md bg-white px-3 py-2 text-sm font-medium text-zinc-900 focus:not-sr-only focus:absolute focus:left-3 focus:top-3 focus:outline-2 focus:outline-[var(--brand)]"
      >
        Skip to content
      </a>
      <header className="border-b border-zinc-200 bg-white dark:border-zinc-800 dark:bg-zinc-900">
        <div className="mx-auto flex h-14 max-w-5xl items-center justify-between gap-3 px-4 sm:px-6">
          <Link
            href="/portal"
            className="flex min-w-0 items-center gap-2.5 rounded-md focus-visible:outline-2 focus-visible:outline-offset-4 focus-visible:outline-[var(--brand)]"
          >
            {brand.logoUrl ? (
              // eslint-disable-next-line @next/next/no-img-element -- the logo is any URL the operator configured: next/image would need its host allow-listed
              <img src={brand.logoUrl} alt="" className="size-8 rounded-md object-contain" />
            ) : (
              <span aria-hidden className="grid size-8 place-items-center rounded-md bg-[var(--brand)] text-sm font-bold text-[var(--brand-fg)]">
                {name.slice(0, 1).toUpperCase()}
              </span>
            )}
            <span className="truncate text-[15px] font-semibold tracking-tight">{brand.organizationName || "Event destinations"}</span>
            {brand.organizationName && <span className="hidden text-sm text-zinc-600 sm:inline dark:text-zinc-400">Event destinations</span>}
          </Link>
          {session.tenantId && (
            <span
              className="max-w-[40%] truncate rounded-full bg-zinc-100 px-2.5 py-1 font-mono text-xs text-zinc-700 dark:bg-zinc-800 dark:text-zinc-300"
              title="Your account"
            >
              {session.tenantId}
            </span>
          )}
        </div>
      </header>
      <main id="main" className="mx-auto max-w-5xl px-4 py-6 sm:px-6 sm:py-8">
        <PortalProvider value={{ tenantId: session.tenantId ?? "", organizationName: brand.organizationName, transformations }}>{children}</PortalProvider>
      </main>
    </div>
  );
}
