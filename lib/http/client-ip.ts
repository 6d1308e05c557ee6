/**
 * Client address and scheme of a request. Without a trusted proxy (`trustedProxies` 0) the socket
 * decides. With N trusted proxies (TRUST_PROXY=true means 1), the client is the Nth X-Forwarded-For entry
 * from the right: each trusted proxy appends the address it saw, so entries further left were written
 * by the client and could be forged. The scheme comes from the first X-Forwarded-Proto entry.
 */
/** Header server.ts sets to the socket's client address on requests Next.js serves that need it (any sent one is overwritten). */
export const CLIENT_IP_HEADER = "x-hookyard-client-ip";

export function clientIpOf(socketAddress: string | undefined, headers: Record<string, string>, trustedProxies: number): string {
  if (trustedProxies > 0) {
    const entries = (headers["x-forwarded-for"] ?? "")
      .split(",")
      .map((e) => e.trim())
      .filter(Boolean);
    if (entries.length) return entries[Math.max(0, entries.length - trustedProxies)];
  }
  const addr = socketAddress ?? "unknown";
  return addr.startsWith("::ffff:") ? addr.slice(7) : addr;
}

/** True when the request came over https (the socket, or X-Forwarded-Proto behind a trusted proxy). */
export function isSecure(encryptedSocket: boolean, headers: Record<string, string>, trustedProxies: number): boolean {
  if (encryptedSocket) return true;
  return trustedProxies > 0 && headers["x-forwarded-proto"]?.split(",")[0]?.trim().toLowerCase() === "https";
}
