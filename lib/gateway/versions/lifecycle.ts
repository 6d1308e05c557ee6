/**
 * Version lifecycle (docs/gateway-api.md#version-lifecycle: a dated version is
 * supported for up to 1 year after its date). A version is deprecated once a newer one exists, and
 * sunsets one year after its own date. Answers of a deprecated or sunset version carry
 * `Deprecation: @<unix seconds>` (RFC 9745) and `Sunset: <HTTP-date>` (RFC 8594); with
 * GATEWAY_ENFORCE_VERSION_SUNSET a version past its sunset answers 410 instead. By default every
 * version keeps serving, so no client breaks on upgrade.
 */
import { API_VERSIONS, type ApiVersion } from "@/lib/gateway/versions";

/** The instant (ms) of a version's date, UTC. */
const dateOf = (v: ApiVersion) => Date.parse(`${v}T00:00:00Z`);

/** When `version` sunsets: one year after its date (ms). */
export function sunsetOf(version: ApiVersion): number {
  const d = new Date(dateOf(version));
  return Date.UTC(d.getUTCFullYear() + 1, d.getUTCMonth(), d.getUTCDate());
}

/** When `version` was deprecated (ms): the date of the next version, or its sunset for the newest; null before either. */
export function deprecationOf(version: ApiVersion, now = Date.now()): number | null {
  const next = API_VERSIONS[API_VERSIONS.indexOf(version) + 1];
  const at = next ? dateOf(next) : sunsetOf(version);
  return at <= now ? at : null;
}

/** The lifecycle headers of an answer in `version` at `now` (none for a current version). */
export function lifecycleHeaders(version: ApiVersion, now = Date.now()): Record<string, string> {
  const deprecated = deprecationOf(version, now);
  if (deprecated === null) return {};
  return { deprecation: `@${Math.floor(deprecated / 1000)}`, sunset: new Date(sunsetOf(version)).toUTCString() };
}

/** True when `version` is past its sunset at `now`. */
export const isSunset = (version: ApiVersion, now = Date.now()) => now >= sunsetOf(version);
