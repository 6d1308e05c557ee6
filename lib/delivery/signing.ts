import { createHmac } from "node:crypto";

/**
 * The gateway signature (docs/pipeline.md#verifying-the-signature-in-your-receiver): base64 of
 * HMAC-SHA256 over the raw body, keyed with the team's signing secret. A receiver recomputes it with
 * nothing but the secret: `createHmac("sha256", secret).update(rawBody).digest("base64")`.
 */
function gatewaySignature(secret: string, body: Buffer | null): string {
  return createHmac("sha256", secret)
    .update(body ?? Buffer.alloc(0))
    .digest("base64");
}

/** `x-gateway-signature` and, while a rolled secret is still active, `x-gateway-signature-2`. */
export function gatewaySignatureHeaders(secrets: { current: string; previous: string | null }, body: Buffer | null): Record<string, string> {
  const headers: Record<string, string> = { "x-gateway-signature": gatewaySignature(secrets.current, body) };
  if (secrets.previous) headers["x-gateway-signature-2"] = gatewaySignature(secrets.previous, body);
  return headers;
}
