/** Helpers shared by the request model and the transformation run endpoint. */
import { parseQuery } from "@/lib/http/query";

/**
 * `parsed_query` of a raw query string (without "?"): brackets nest (`a[b]=1` → `{a: {b: "1"}}`),
 * `a[]=x`, `a[0]=x` and repeated keys (`a=1&a=2`) give arrays, as the API's own query parameters parse.
 */
export function parseQueryString(raw: string): Record<string, unknown> {
  return parseQuery(new URLSearchParams(raw));
}
