/**
 * Gateway API test helpers: each test file makes teams of its own (a team, an API key, a signing
 * secret) straight through the domain functions on the test database, so tests never share rate-limit
 * buckets or data, and isolation between teams can be checked.
 */
import { decryptSecret } from "@/lib/crypto/secrets";
import { getPool } from "@/lib/db/pool";
import { createApiKey } from "@/lib/teams/api-keys";
import { createTeam } from "@/lib/teams/bootstrap";
import { BASE_URL } from "./client";

export type TestTeam = { teamId: string; apiKey: string; signingSecret: string; cliKey?: string };

/** A new TEAM-mode team with one API key (and its cli_key, which the database holds hashed only). */
export async function newTeam(name = "test team"): Promise<TestTeam> {
  const { teamId, signingSecret, cliKey } = await createTeam(name);
  const { key } = await createApiKey(teamId, "test");
  return { teamId, apiKey: key, signingSecret, cliKey };
}

/** Calls the gateway API: `api(team, "POST", "/2025-07-01/sources", body)`; returns status, headers and parsed JSON. */
export async function api(team: TestTeam | { apiKey: string } | null, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${BASE_URL}/api${path}`, {
    method,
    headers: {
      ...(team ? { authorization: `Bearer ${team.apiKey}` } : {}),
      ...(body !== undefined ? { "content-type": "application/json" } : {}),
      ...headers,
    },
    body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let json: any;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = text;
  }
  return { status: res.status, headers: res.headers, json };
}

/**
 * The gateway team (the oldest team, created by the servers' first start) with an API key of its own: the
 * team the outbound service's `gateway` destinations may target by default (docs/outbound.md "The gateway type").
 */
export async function gatewayTeam(): Promise<TestTeam> {
  const { rows } = await getPool().query<{ id: string; signing_secret_encrypted: string }>(
    "SELECT id, signing_secret_encrypted FROM teams WHERE mode = 'TEAM' ORDER BY created_at, id LIMIT 1",
  );
  const { key } = await createApiKey(rows[0].id, "outbound gateway tests");
  return { teamId: rows[0].id, apiKey: key, signingSecret: decryptSecret(rows[0].signing_secret_encrypted) };
}
