/**
 * The one browser API client (components/ui/api-client.ts) and the console, dashboard and portal
 * adapters over it, against the running server and a real local HTTP server: each surface's error body
 * read into one ApiError (message, validation `messages`, `retryAfter`), the portal's CSRF header sent
 * (and needed), network failures and aborts. The adapters' settings get a base URL here, since Node
 * has no page origin.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closePool } from "@/lib/db/pool";
import { createOutboundKey } from "@/lib/outbound/auth";
import { CONSOLE_CLIENT, createErrorOf } from "@/components/console/api";
import { GATEWAY_CLIENT } from "@/components/dashboard/api";
import { PORTAL_CLIENT } from "@/components/portal/api";
import { ApiError, type ApiClientOptions, createApiClient, NETWORK_ERROR, qs } from "@/components/ui/api-client";
import { BASE_URL } from "./support/client";

const run = randomBytes(4).toString("hex");
const at = (options: ApiClientOptions, headers: Record<string, string> = {}) =>
  createApiClient({
    ...options,
    url: (p) => `${BASE_URL}${options.url ? options.url(p) : p}`,
    headers: { "x-forwarded-for": `10.77.${randomBytes(1)[0]}.${randomBytes(1)[0]}`, ...options.headers, ...headers },
  });

/** Rejects with what `p` threw (fails when it resolves). */
async function thrown(p: Promise<unknown>): Promise<ApiError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApiError);
  return err as ApiError;
}

let local: Server;
let localUrl = "";
let seen: { method: string; url: string; headers: Record<string, string | string[] | undefined>; body: string }[] = [];

beforeAll(async () => {
  local = createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString()));
    req.on("end", () => {
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, body });
      if (req.url === "/limited") {
        res
          .writeHead(429, { "content-type": "application/json", "retry-after": "7" })
          .end(JSON.stringify({ error: "Too Many Requests", message: "slow down" }));
      } else if (req.url === "/text") {
        res.writeHead(502, { "content-type": "text/plain" }).end("bad gateway");
      } else if (req.url === "/empty") {
        res.writeHead(204).end();
      } else if (req.url === "/hang") {
        setTimeout(() => res.writeHead(200).end("{}"), 5_000);
      } else {
        res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ ok: true }));
      }
    });
  });
  await new Promise<void>((resolve) => local.listen(0, "127.0.0.1", resolve));
  localUrl = `http://127.0.0.1:${(local.address() as AddressInfo).port}`;
});

afterAll(async () => {
  local.closeAllConnections();
  await new Promise((resolve) => local.close(resolve));
  await closePool();
});

describe("the shared client", () => {
  const client = (options: ApiClientOptions = {}) => createApiClient({ ...options, url: (p) => `${localUrl}${p}` });

  it("sends JSON with accept and content-type and the surface's headers, and answers the parsed body", async () => {
    seen = [];
    const out = await client({ headers: { "x-extra": "1" } })<{ ok: boolean }>("/echo", { method: "POST", body: { a: 1 } });
    expect(out).toEqual({ ok: true });
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ method: "POST", url: "/echo", body: '{"a":1}' });
    expect(seen[0].headers).toMatchObject({ accept: "application/json", "content-type": "application/json", "x-extra": "1" });
    await client()("/echo");
    expect(seen[1].headers["content-type"]).toBeUndefined();
    expect(await client()("/empty")).toBeNull();
  });

  it("reads retry_after from the Retry-After header when the body has none, and the message from the surface's reader", async () => {
    const err = await thrown(client(CONSOLE_CLIENT)("/limited"));
    expect(err.status).toBe(429);
    expect(err.message).toBe("slow down");
    expect(err.retryAfter).toBe(7);
    expect(createErrorOf(err)).toEqual({ kind: "rate_limited", message: "slow down", retryAfter: 7 });
  });

  it("keeps a body that is not JSON as text and falls back to the surface's message", async () => {
    const plain = await thrown(client()("/text"));
    expect(plain).toMatchObject({ status: 502, message: "HTTP 502", body: "bad gateway", retryAfter: null });
    expect(plain.messages).toEqual([]);
    const portal = await thrown(client(PORTAL_CLIENT)("/text"));
    expect(portal.message).toBe("The server answered 502.");
  });

  it("a network failure is status 0 with the network message; an abort rethrows the AbortError", async () => {
    const down = await thrown(createApiClient({ url: () => "http://127.0.0.1:1/x" })("/x"));
    expect(down).toMatchObject({ status: 0, message: NETWORK_ERROR });
    expect(createErrorOf(down)).toEqual({ kind: "other", message: NETWORK_ERROR });
    const ctl = new AbortController();
    const pending = client()("/hang", { signal: ctl.signal });
    ctl.abort();
    await expect(pending).rejects.toMatchObject({ name: "AbortError" });
  });

  it("qs skips empty values and repeats arrays, from an object or from pairs", () => {
    expect(qs({ a: "1", b: "", c: null, d: undefined, e: ["x", "y"], f: 0, g: false })).toBe("?a=1&e=x&e=y&f=0&g=false");
    expect(
      qs([
        ["include", "a"],
        ["include", "b"],
        ["next", undefined],
      ]),
    ).toBe("?include=a&include=b");
    expect(qs({})).toBe("");
  });
});

describe("each surface's error body, from the running server", () => {
  it("console: a 422 `{code, status, data}` gives its messages, read as an invalid create", async () => {
    const err = await thrown(at(CONSOLE_CLIENT)("/", { method: "POST", body: { type: "NOT_A_TYPE" } }));
    expect(err.status).toBe(422);
    expect(err.messages.length).toBeGreaterThan(0);
    expect(err.messages.join(" ")).toMatch(/type/i);
    expect(err.message).toBe(err.messages[0]);
    expect(createErrorOf(err)).toEqual({ kind: "invalid", messages: err.messages });
  });

  it("console: a created test URL comes back as JSON", async () => {
    const out = await at(CONSOLE_CLIENT)<{ inspect_url: string; ingest_url: string }>("/", { method: "POST", body: { name: `client ${run}` } });
    expect(out.ingest_url).toContain("/e/");
  });

  it("gateway (dashboard): `{handled, status, message, data}` gives the message with its detail; the path goes under the API version", async () => {
    const err = await thrown(at(GATEWAY_CLIENT)("events"));
    expect(err.status).toBe(401);
    expect(err.body).toMatchObject({ handled: true, status: 401, code: "UNAUTHORIZED" });
    expect(err.message).toBe("Unauthorized: No API key was provided through Basic Auth or Bearer Token");
  });

  it("outbound (portal): `{status, message}` gives the message; the CSRF header lets the portal cookie write, and without it the write is refused", async () => {
    const admin = (await createOutboundKey(`ui-client-${run}`)).key;
    const tenant = `ui-client-${run}`;
    const adminClient = at({ ...PORTAL_CLIENT, headers: {} }, { authorization: `Bearer ${admin}` });
    await adminClient(`/tenants/${tenant}`, { method: "PUT", body: {} });
    const { token } = await adminClient<{ token: string }>(`/tenants/${tenant}/token`);
    const cookie = { cookie: `hy_portal=${token}` };
    const body = { type: "webhook", topics: "*", config: { url: "https://example.com/hook" } };

    const created = await at(PORTAL_CLIENT, cookie)<{ id: string; tenant_id: string }>(`/tenants/${tenant}/destinations`, { method: "POST", body });
    expect(created.tenant_id).toBe(tenant);

    const refused = await thrown(at({ ...PORTAL_CLIENT, headers: {} }, cookie)(`/tenants/${tenant}/destinations`, { method: "POST", body }));
    expect(refused).toMatchObject({ status: 403, message: "cross-site request refused" });

    const invalid = await thrown(
      at(PORTAL_CLIENT, cookie)(`/tenants/${tenant}/destinations`, { method: "POST", body: { type: "webhook", topics: "*", config: {} } }),
    );
    expect(invalid.status).toBe(422);
    expect(invalid.messages.some((m) => m.includes("config.url"))).toBe(true);
  });
});
