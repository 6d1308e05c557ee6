/**
 * Helpers for outbound API tests against the servers `npm test` starts: one call with a bearer token on
 * either deployment form.
 */
import { BASE_URL } from "./client";

export type OutboundAnswer = { status: number; headers: Headers; json: any; text: string };

/** `method path` on the outbound form `form` (`api/v1` or `2025-07-01`) with `token`; a string body is sent as is. */
export async function outboundCall(
  token: string | null,
  method: string,
  path: string,
  body?: unknown,
  opts: { form?: string; base?: string; headers?: Record<string, string> } = {},
): Promise<OutboundAnswer> {
  const res = await fetch(`${opts.base ?? BASE_URL}/outbound/${opts.form ?? "api/v1"}${path}`, {
    method,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body !== undefined ? { "content-type": "application/json" } : {}), ...opts.headers },
    body: body === undefined ? undefined : typeof body === "string" ? body : Buffer.isBuffer(body) ? new Uint8Array(body) : JSON.stringify(body),
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, json, text };
}
