/**
 * Body and answer of `POST /{version}/signing-secret/rotate` (docs/gateway-api.md#signing-secret): a new team
 * signing secret for `x-gateway-signature`; the old one keeps signing as `x-gateway-signature-2` for `delay`
 * ms (default 24 hours, 0: dropped at once, at most 7 days). The handler: lib/gateway/signing-secret/routes.ts.
 */
import { z } from "zod";

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
