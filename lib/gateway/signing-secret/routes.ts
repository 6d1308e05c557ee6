/**
 * Handler of `POST /{version}/signing-secret/rotate` (docs/gateway-api.md#signing-secret). The route file
 * app/api/[version]/signing-secret/rotate/route.ts re-exports it.
 */
import type { z } from "zod";
import { gatewayRoute } from "@/lib/gateway/http";
import { ZSigningSecretRotate } from "@/lib/gateway/signing-secret/schemas";
import { rotateSigningSecret } from "@/lib/teams/signing-secret";

/** The handler: rotates the calling team's secret. Throws AppError VALIDATION (through gatewayRoute) for a bad delay. */
export const signingSecretRotateRoute = gatewayRoute<z.infer<typeof ZSigningSecretRotate>>(
  { body: ZSigningSecretRotate, optionalBody: true },
  async ({ teamId, body }) => {
    const { secret, previousExpiresAt } = await rotateSigningSecret(teamId, body.delay);
    return { body: { signing_secret: secret, previous_secret_expires_at: previousExpiresAt?.toISOString() ?? null } };
  },
);
