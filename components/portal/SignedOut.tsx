/** The page shown without a portal session: a link that expired, one that is not valid, or no link at all. */
export function SignedOut({ reason, organizationName }: { reason: string | null; organizationName: string }) {
  const where = organizationName ? `${organizationName}'s dashboard` : "the dashboard of the service you came from";
  const [title, text] =
    reason === "expired"
      ? ["This portal link has expired", "Portal links are valid for 24 hours."]
      : reason === "invalid"
        ? ["This portal link is not valid", "The link may be incomplete or it was not issued for this portal."]
        : reason === "unknown_tenant"
          ? ["This account no longer exists", "The account this link was issued for has been removed."]
          : ["You are not signed in to the portal", "The portal is opened through a link that signs you in."];
  return (
    <div className="mx-auto max-w-lg py-12 text-center" data-testid="portal-signed-out" data-reason={reason ?? "missing"}>
      <div aria-hidden className="mx-auto mb-4 grid size-12 place-items-center rounded-full bg-amber-100 text-amber-800 dark:bg-amber-950 dark:text-amber-200">
        <svg viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth="2" className="size-6">
          <circle cx="12" cy="12" r="9" />
          <path d="M12 7v6M12 16.5v.5" strokeLinecap="round" />
        </svg>
      </div>
      <h1 className="text-xl font-semibold tracking-tight">{title}</h1>
      <p className="mt-2 text-sm text-zinc-700 dark:text-zinc-300">{text}</p>
      <p className="mt-4 text-sm text-zinc-700 dark:text-zinc-300">
        To manage your event destinations, open the portal again from {where}: it gives you a fresh link.
      </p>
    </div>
  );
}
