import Link from "next/link";
import { cx } from "@/components/ui/cx";

/**
 * `brand` is the tenant portal's primary: its background and text are the CSS variables `--brand` and
 * `--brand-fg` (PORTAL_BRAND_COLOR and the black or white chosen for it, set by app/portal/layout.tsx).
 */
export type ButtonVariant = "primary" | "brand" | "secondary" | "danger" | "dangerOutline" | "ghost";
export type ButtonSize = "xs" | "sm" | "md" | "lg";

const VARIANTS: Record<ButtonVariant, string> = {
  // Hover goes darker in both schemes: white text on a lighter indigo (400/500) falls under 4.5:1.
  primary:
    "bg-indigo-600 text-white shadow-sm hover:bg-indigo-700 disabled:bg-indigo-600/50 dark:bg-indigo-500 dark:hover:bg-indigo-600 dark:disabled:bg-indigo-500/40",
  brand: "bg-[var(--brand)] text-[var(--brand-fg)] shadow-sm hover:brightness-95 disabled:opacity-60",
  secondary:
    "bg-white text-zinc-900 shadow-sm ring-1 ring-inset ring-zinc-300 hover:bg-zinc-50 disabled:text-zinc-500 dark:bg-zinc-900 dark:text-zinc-100 dark:ring-zinc-700 dark:hover:bg-zinc-800 dark:disabled:text-zinc-400",
  danger: "bg-rose-600 text-white shadow-sm hover:bg-rose-700 disabled:bg-rose-600/50 dark:bg-rose-600 dark:hover:bg-rose-700",
  dangerOutline:
    "bg-white text-rose-700 shadow-xs ring-1 ring-inset ring-rose-300 hover:bg-rose-50 disabled:opacity-60 dark:bg-zinc-900 dark:text-rose-300 dark:ring-rose-900 dark:hover:bg-rose-950",
  ghost: "text-zinc-700 hover:bg-zinc-100 disabled:text-zinc-500 dark:text-zinc-300 dark:hover:bg-zinc-800",
};
const SIZES: Record<ButtonSize, string> = {
  xs: "h-7 px-2 text-xs gap-1",
  sm: "h-8 px-2.5 text-xs gap-1.5",
  md: "h-9 px-3.5 text-sm gap-2",
  lg: "h-11 px-5 text-base gap-2",
};

/** Classes of a button (also for links that look like one). */
export function buttonClasses(variant: ButtonVariant = "secondary", size: ButtonSize = "md", className?: string) {
  return cx(
    "inline-flex shrink-0 items-center justify-center rounded-md font-medium whitespace-nowrap transition-colors focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-[var(--hy-focus)] disabled:cursor-not-allowed",
    VARIANTS[variant],
    SIZES[size],
    className,
  );
}

/** A button: primary (one per view), secondary, danger or ghost. `type` defaults to "button". */
export function Button({
  variant,
  size,
  className,
  type = "button",
  ...props
}: React.ButtonHTMLAttributes<HTMLButtonElement> & { variant?: ButtonVariant; size?: ButtonSize }) {
  return <button type={type} className={buttonClasses(variant, size, className)} {...props} />;
}

/** A link styled as a button. */
export function ButtonLink({
  variant,
  size,
  className,
  href,
  ...props
}: React.AnchorHTMLAttributes<HTMLAnchorElement> & { href: string; variant?: ButtonVariant; size?: ButtonSize }) {
  return <Link href={href} className={buttonClasses(variant, size, className)} {...props} />;
}

/** A quiet link back to a parent page ("← All destinations"). */
export function BackLink({ href, children }: { href: string; children: React.ReactNode }) {
  return (
    <Link
      href={href}
      className="inline-flex items-center gap-1 rounded-sm text-sm text-zinc-700 hover:text-zinc-950 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-[var(--hy-focus)] dark:text-zinc-300 dark:hover:text-white"
    >
      <span aria-hidden>←</span> {children}
    </Link>
  );
}
