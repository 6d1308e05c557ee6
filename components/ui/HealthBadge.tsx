"use client";
/**
 * Delivery health of an outbound tenant or destination (the API's `health` field, docs/outbound.md
 * "Delivery health"), in one badge and one sentence, shared by the dashboard's Outbound pages and the
 * tenant portal: Failing (a quarter or more of the last day's attempts failed, or 5 in a row), Some
 * failures, Healthy, or No deliveries.
 */
import { Badge, type Tone } from "@/components/ui/Badge";
import { RelativeTime } from "@/components/ui/Time";

/** The API's `health` object (lib/outbound/delivery-health.ts DeliveryHealth). */
export type Health = {
  window_hours: number;
  attempts: number;
  failed: number;
  failure_rate: number | null;
  last_failure_at: string | null;
  last_failure_code: string | null;
  consecutive_failures?: number;
};

/** A failure rate (0–1) as a percentage for people: "57%", "<1%" for a few failures in many, "0%". */
export function percent(rate: number | null | undefined): string {
  if (rate == null) return "—";
  if (rate > 0 && rate < 0.01) return "<1%";
  return `${Math.round(rate * 100)}%`;
}

/** The level of `health`: its badge's tone and word. */
export function healthLevel(health: Health): { level: "failing" | "degraded" | "healthy" | "idle"; tone: Tone; label: string } {
  if (!health.attempts) return { level: "idle", tone: "neutral", label: "No deliveries" };
  if ((health.failure_rate ?? 0) >= 0.25 || (health.consecutive_failures ?? 0) >= 5) return { level: "failing", tone: "danger", label: "Failing" };
  if (health.failed > 0) return { level: "degraded", tone: "warning", label: "Some failures" };
  return { level: "healthy", tone: "success", label: "Healthy" };
}

/** The badge: "Failing · 57%" (the failure rate of the window), "Healthy", "No deliveries". */
export function HealthBadge({ health, className }: { health: Health | undefined; className?: string }) {
  if (!health) return null;
  const { level, tone, label } = healthLevel(health);
  return (
    <Badge tone={tone} className={className} data-testid="health-badge" data-level={level} title={healthSentence(health)}>
      {label}
      {health.failed > 0 && ` · ${percent(health.failure_rate)} failed`}
    </Badge>
  );
}

/** "407 of 717 attempts failed in the last 24 hours" (or none in it). */
export function healthSentence(health: Health): string {
  if (!health.attempts) return `No delivery attempts in the last ${health.window_hours} hours`;
  return `${health.failed} of ${health.attempts} attempt${health.attempts === 1 ? "" : "s"} failed in the last ${health.window_hours} hours`;
}

/** The sentence and the last failure ("last failure 3m ago, 503"), for a row under a name. */
export function HealthLine({ health, className }: { health: Health | undefined; className?: string }) {
  if (!health) return null;
  return (
    <span className={className} data-testid="health-line">
      {healthSentence(health)}
      {health.last_failure_at && (
        <>
          {" · last failure "}
          <RelativeTime iso={health.last_failure_at} />
          {health.last_failure_code ? ` (${health.last_failure_code})` : ""}
        </>
      )}
    </span>
  );
}
