/**
 * A small local HTTP server that speaks the Pub/Sub emulator's REST contract (Google's emulator cannot be
 * installed here): `POST /v1/projects/{p}/topics/{t}:publish` and an OAuth2 token endpoint (`POST /token`,
 * the JWT bearer grant, the assertion verified with the service account's public key). Its answers are
 * FIXTURES: the request and response shapes of Google's Pub/Sub v1 REST reference and OAuth2 token
 * endpoint, transcribed from the documented contract (including the emulator's `Topic not found`), not
 * captured from a live emulator. docs/outbound.md "Google Cloud Pub/Sub".
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { type CryptoKey, jwtVerify, type KeyObject } from "jose";

/** Fixture answers (see the file's comment: documented shapes, not live captures). */
export const PUBSUB_FIXTURES = {
  token: { access_token: "ya29.fixture-access-token", expires_in: 3599, token_type: "Bearer" },
  badGrant: { error: "invalid_grant", error_description: "Invalid JWT Signature." },
  notFound: { error: { code: 404, message: "Topic not found", status: "NOT_FOUND" } },
  unauthenticated: {
    error: {
      code: 401,
      message: "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.",
      status: "UNAUTHENTICATED",
    },
  },
  badMessage: { error: { code: 400, message: "Invalid data in message: must be base64.", status: "INVALID_ARGUMENT" } },
};

/** A message as published: data decoded, attributes, ordering key. */
export type PublishedMessage = { topic: string; data: string; attributes: Record<string, string>; orderingKey?: string; authorization?: string };

/**
 * Starts the server with `topics` (full names, `projects/p/topics/t`); with `publicKey`, publishes need
 * the token its `/token` endpoint issued for an assertion signed by the matching private key.
 */
export async function startPubSubEmulator(topics: string[], publicKey?: CryptoKey | KeyObject) {
  const messages: PublishedMessage[] = [];
  const grants: Record<string, unknown>[] = [];
  let nextId = 1;
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (d: Buffer) => (body += d.toString("utf8")));
    req.on("end", () => {
      const answer = (status: number, value: unknown) => {
        res.writeHead(status, { "content-type": "application/json" });
        res.end(JSON.stringify(value));
      };
      void (async () => {
        if (req.method === "POST" && req.url === "/token") {
          const form = new URLSearchParams(body);
          try {
            if (!publicKey || form.get("grant_type") !== "urn:ietf:params:oauth:grant-type:jwt-bearer") throw new Error("grant");
            const { payload } = await jwtVerify(form.get("assertion") ?? "", publicKey, { audience: `${url}/token` });
            grants.push(payload);
            return answer(200, PUBSUB_FIXTURES.token);
          } catch {
            return answer(400, PUBSUB_FIXTURES.badGrant);
          }
        }
        const m = /^\/v1\/(projects\/[^/]+\/topics\/[^/:]+):publish$/.exec(req.url ?? "");
        if (req.method !== "POST" || !m) return answer(404, { error: { code: 404, message: "Not found", status: "NOT_FOUND" } });
        if (publicKey && req.headers.authorization !== `Bearer ${PUBSUB_FIXTURES.token.access_token}`) return answer(401, PUBSUB_FIXTURES.unauthenticated);
        const topic = decodeURIComponent(m[1]);
        if (!topics.includes(topic)) return answer(404, PUBSUB_FIXTURES.notFound);
        const given = (JSON.parse(body) as { messages?: { data?: string; attributes?: Record<string, string>; orderingKey?: string }[] }).messages ?? [];
        if (given.some((g) => typeof g.data !== "string" || !/^[A-Za-z0-9+/]*={0,2}$/.test(g.data))) return answer(400, PUBSUB_FIXTURES.badMessage);
        const ids = given.map((g) => {
          messages.push({
            topic,
            data: Buffer.from(g.data!, "base64").toString("utf8"),
            attributes: g.attributes ?? {},
            ...(g.orderingKey ? { orderingKey: g.orderingKey } : {}),
            ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}),
          });
          return String(nextId++);
        });
        return answer(200, { messageIds: ids });
      })();
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    messages,
    grants,
    stop: () => {
      server.closeAllConnections();
      return new Promise<void>((r) => server.close(() => r()));
    },
  };
}
