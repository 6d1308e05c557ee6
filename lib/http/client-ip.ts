/**
 * Client address and scheme of a request. Without TRUST_PROXY the socket decides; with it, the first
 * X-Forwarded-For entry and X-Forwarded-Proto (what the operator's proxy saw).
 */
export function clientIpOf(socketAddress: string | undefined, headers: Record<string, string>, trustProxy: boolean): string {
  if (trustProxy) {
    const forwarded = headers["x-forwarded-for"]?.split(",")[0]?.trim();
    if (forwarded) return forwarded;
  }
  const addr = socketAddress ?? "unknown";
  return addr.startsWith("::ffff:") ? addr.slice(7) : addr;
}

/** True when the request came over https. */
export function isSecure(encryptedSocket: boolean, headers: Record<string, string>, trustProxy: boolean): boolean {
  if (encryptedSocket) return true;
  return trustProxy && headers["x-forwarded-proto"]?.split(",")[0]?.trim().toLowerCase() === "https";
}
