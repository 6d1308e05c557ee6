import { humanizeCode, isNeutralRejection } from "@/components/console/format";
import { Badge, type Tone } from "@/components/ui/Badge";
import { cx } from "@/components/ui/cx";

const METHOD_TONES: Record<string, Tone> = { GET: "success", POST: "info", PUT: "warning", PATCH: "accent", DELETE: "danger" };

/** The HTTP method, coloured by verb. */
export function MethodBadge({ verb, className }: { verb: string | undefined; className?: string }) {
  const v = (verb || "POST").toUpperCase();
  return (
    <Badge
      compact
      tone={METHOD_TONES[v] ?? "neutral"}
      data-testid="method-badge"
      className={cx("min-w-[3.75rem] justify-center font-mono tracking-wide", className)}
    >
      {v}
    </Badge>
  );
}

/** Why a request was rejected: neutral for NO_CONNECTION (informational), a warning otherwise. */
export function RejectionBadge({ cause }: { cause: string }) {
  const neutral = isNeutralRejection(cause);
  return (
    <Badge
      tone={neutral ? "neutral" : "warning"}
      data-testid="rejection-badge"
      data-rejection-cause={cause}
      data-severity={neutral ? "info" : "warning"}
      title={cause}
      compact
    >
      {!neutral && (
        <svg viewBox="0 0 16 16" className="size-3" fill="currentColor" aria-hidden>
          <path d="M8.9 1.6a1 1 0 0 0-1.8 0L.7 13.5A1 1 0 0 0 1.6 15h12.8a1 1 0 0 0 .9-1.5L8.9 1.6ZM8 5.5a.75.75 0 0 1 .75.75v3.5a.75.75 0 0 1-1.5 0v-3.5A.75.75 0 0 1 8 5.5Zm0 7.25a.9.9 0 1 1 0-1.8.9.9 0 0 1 0 1.8Z" />
        </svg>
      )}
      {humanizeCode(cause)}
    </Badge>
  );
}

/** A small label (source type, body encoding, …) in one of the kit's tones, neutral by default. */
export function Tag({ children, tone = "neutral", className }: { children: React.ReactNode; tone?: Tone; className?: string }) {
  return (
    <Badge compact tone={tone} className={className}>
      {children}
    </Badge>
  );
}
