/**
 * Dated API versions (docs/gateway-api.md#versions). The internal model is the newest version;
 * older versions convert requests up and responses down in their own modules (sources.ts, …).
 */
export const API_VERSIONS = ["2024-09-01", "2025-01-01", "2025-07-01"] as const;
export type ApiVersion = (typeof API_VERSIONS)[number];
export const LATEST_VERSION: ApiVersion = "2025-07-01";
/** Used for paths without a version segment. */
export const OLDEST_VERSION: ApiVersion = "2024-09-01";

/** The version named by a path segment, or null when it is not supported. */
export function resolveVersion(segment: string): ApiVersion | null {
  return (API_VERSIONS as readonly string[]).includes(segment) ? (segment as ApiVersion) : null;
}

/** True when `version` is `min` or newer. */
export function isAtLeast(version: ApiVersion, min: ApiVersion): boolean {
  return API_VERSIONS.indexOf(version) >= API_VERSIONS.indexOf(min);
}

/** True for a segment shaped like a date (an attempt at a version, supported or not). */
export const looksLikeVersion = (segment: string) => /^\d{4}-\d{2}-\d{2}$/.test(segment);
