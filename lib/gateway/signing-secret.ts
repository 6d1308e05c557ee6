/**
 * `POST /{version}/signing-secret/rotate` (docs/gateway-api.md#signing-secret): a new team signing secret
 * for `x-gateway-signature`; the old one keeps signing as `x-gateway-signature-2` for `delay` ms (default
 * 24 hours, 0: dropped at once, at most 7 days). The answer carries the new secret, once. Route file:
 * app/api/[version]/signing-secret/rotate/route.ts.
 */
import { z } from "zod";
import { gatewayRoute } from "@/lib/gateway/http";
import { rotateSigningSecret } from "@/lib/teams/signing-secret";

/** Longest rotation delay, ms: 7 days. */
const MAX_DELAY_MS = 7 * 24 * 3_600_000;

/** Body of `POST /signing-secret/rotate`. */
export const ZSigningSecretRotate = z
  .strictObject({
    delay: z
      .number()
      .int()
      .min(0)
      .max(MAX_DELAY_MS)
      .default(24 * 3_600_000)
      .describe("How long the previous secret keeps signing as x-gateway-signature-2, ms (default 24 hours; 0: not at all)."),
  })
  .meta({ id: "SigningSecretRotate" });

/** Answer of `POST /signing-secret/rotate`. */
export const ZSigningSecretRotated = z
  .object({
    signing_secret: z.string().describe("The new secret: it signs x-gateway-signature from now on. Shown once."),
    previous_secret_expires_at: z.iso
      .datetime()
      .nullable()
      .describe("Until when the previous secret signs x-gateway-signature-2; null when it was dropped at once."),
  })
  .meta({ id: "SigningSecretRotated" });

/** The handler: rotates the calling team's secret. Throws AppError VALIDATION (through gatewayRoute) for a bad delay. */
export const signingSecretRotateRoute = gatewayRoute<z.infer<typeof ZSigningSecretRotate>>(
  { body: ZSigningSecretRotate, optionalBody: true },
  async ({ teamId, body }) => {
    const { secret, previousExpiresAt } = await rotateSigningSecret(teamId, body.delay);
    return { body: { signing_secret: secret, previous_secret_expires_at: previousExpiresAt?.toISOString() ?? null } };
  },
);
