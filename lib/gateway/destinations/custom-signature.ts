/**
 * Rotating a CUSTOM_SIGNATURE destination's secret with an overlap (docs/pipeline.md "Destination auth"):
 * a new `signing_secret` given with `rotate_secret_overlap_seconds` keeps the stored one as
 * `previous_signing_secret`, which signs a second header `{key}-2` until `previous_signing_secret_invalid_at`,
 * as the gateway's own secret signs `x-gateway-signature-2` after a rotation.
 */

/** Longest overlap: 7 days, as the outbound service's `rotate_secret_overlap_seconds`. */
export const MAX_CUSTOM_SIGNATURE_OVERLAP_SECONDS = 7 * 24 * 3600;

/**
 * The CUSTOM_SIGNATURE credentials to store, from the validated `given` ones and the `stored` ones of the
 * destination (null when it had none of this auth type): `rotate_secret_overlap_seconds` (write-only) moves
 * the stored secret to `previous_signing_secret` for that many seconds when the secret changes (0 drops any
 * previous one at once); credentials given again with the same secret keep the previous one; an overlap
 * that has ended is dropped. Other auth types are returned as given. Never throws.
 */
export function settleCustomSignature(
  authType: unknown,
  given: Record<string, unknown>,
  stored: Record<string, unknown> | null,
  now = Date.now(),
): Record<string, unknown> {
  if (authType !== "CUSTOM_SIGNATURE") return given;
  const { rotate_secret_overlap_seconds: overlap, ...out } = given;
  if (typeof overlap === "number") {
    delete out.previous_signing_secret;
    delete out.previous_signing_secret_invalid_at;
    const old = stored?.signing_secret;
    if (overlap > 0 && typeof old === "string" && old !== out.signing_secret) {
      out.previous_signing_secret = old;
      out.previous_signing_secret_invalid_at = new Date(now + overlap * 1000).toISOString();
    }
  } else if (out.previous_signing_secret === undefined && stored?.previous_signing_secret !== undefined && stored.signing_secret === out.signing_secret) {
    out.previous_signing_secret = stored.previous_signing_secret;
    out.previous_signing_secret_invalid_at = stored.previous_signing_secret_invalid_at;
  }
  const until = typeof out.previous_signing_secret_invalid_at === "string" ? Date.parse(out.previous_signing_secret_invalid_at) : NaN;
  if (typeof out.previous_signing_secret !== "string" || !(until > now)) {
    delete out.previous_signing_secret;
    delete out.previous_signing_secret_invalid_at;
  }
  return out;
}
