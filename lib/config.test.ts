import path from "node:path";
import { describe, expect, it } from "vitest";
import { parseConfig as parseConfigOf } from "@/lib/config";

/** parseConfig of just these variables (NodeJS.ProcessEnv's typing wants NODE_ENV in every literal). */
const parseConfig = (vars: Record<string, string>) => parseConfigOf(vars as NodeJS.ProcessEnv);

describe("lib/config parseConfig", () => {
  it("the V8 memory settings of npm start's children: 512 MiB old space and 16 MiB semi-spaces by default, 0 turns each off, bad values refused", () => {
    const d = parseConfig({});
    expect([d.webMaxOldSpaceMb, d.v8SemiSpaceMb]).toEqual([512, 16]);
    const off = parseConfig({ WEB_MAX_OLD_SPACE_MB: "0", V8_SEMI_SPACE_MB: "0" });
    expect([off.webMaxOldSpaceMb, off.v8SemiSpaceMb]).toEqual([0, 0]);
    expect(() => parseConfig({ V8_SEMI_SPACE_MB: "-1" })).toThrow(/V8_SEMI_SPACE_MB/);
    expect(() => parseConfig({ WEB_MAX_OLD_SPACE_MB: "lots" })).toThrow(/WEB_MAX_OLD_SPACE_MB/);
  });

  it("parseConfig – defaults for an empty environment", () => {
    const c = parseConfig({});
    expect(c.nodeEnv).toBe("production");
    expect(c.port).toBe(3000);
    expect(c.host).toBe("0.0.0.0");
    expect(c.publicUrl).toBe("http://localhost:3000");
    expect(c.ingestUrl).toBe("http://localhost:3000/e");
    expect(c.databaseUrl).toBeUndefined();
    expect(c.dataDir).toBe(path.resolve(".data"));
    expect(c.trustProxy).toBe(0);
    expect(c.cookieDomain).toBe("auto");
    expect(c.ingestMaxBodyBytes).toBe(10 * 1024 * 1024);
    expect(c.consoleCreateRateLimit).toBe(60);
    expect(c.consoleNewRateLimit).toBe(10);
    expect(c.cliCommand).toBe("node cli/hookyard.mjs");
    expect(c.logLevel).toBe("info");
  });

  it("parseConfig – default PUBLIC_URL follows PORT", () => {
    const c = parseConfig({ PORT: "8080" });
    expect(c.port).toBe(8080);
    expect(c.publicUrl).toBe("http://localhost:8080");
    expect(c.ingestUrl).toBe("http://localhost:8080/e");
  });

  it("parseConfig – PUBLIC_URL trailing slashes are removed", () => {
    expect(parseConfig({ PUBLIC_URL: "https://hooks.example.com/" }).publicUrl).toBe("https://hooks.example.com");
    expect(parseConfig({ PUBLIC_URL: "https://hooks.example.com///" }).publicUrl).toBe("https://hooks.example.com");
    expect(parseConfig({ PUBLIC_URL: "https://example.com/hookyard/" }).publicUrl).toBe("https://example.com/hookyard");
  });

  it("parseConfig – INGEST_URL defaults to {PUBLIC_URL}/e", () => {
    expect(parseConfig({ PUBLIC_URL: "https://hooks.example.com/" }).ingestUrl).toBe("https://hooks.example.com/e");
  });

  it("parseConfig – explicit INGEST_URL is kept, without trailing slash", () => {
    const c = parseConfig({ PUBLIC_URL: "https://console.example.com", INGEST_URL: "https://in.example.com/e/" });
    expect(c.ingestUrl).toBe("https://in.example.com/e");
    expect(c.publicUrl).toBe("https://console.example.com");
  });

  it.each(["abc", "70000", "-1", "3.5"])("parseConfig – invalid PORT %s throws naming PORT", (port) => {
    expect(() => parseConfig({ PORT: port })).toThrow(/PORT/);
  });

  it("parseConfig – invalid PUBLIC_URL throws naming PUBLIC_URL", () => {
    expect(() => parseConfig({ PUBLIC_URL: "not a url" })).toThrow(/PUBLIC_URL/);
  });

  it("parseConfig – every invalid variable is named in one error", () => {
    let message = "";
    try {
      parseConfig({ PORT: "x", TRUST_PROXY: "maybe", CONSOLE_CREATE_RATE_LIMIT: "0" });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(/PORT/);
    expect(message).toMatch(/TRUST_PROXY/);
    expect(message).toMatch(/CONSOLE_CREATE_RATE_LIMIT/);
  });

  it.each([
    ["1", 1],
    ["true", 1],
    ["yes", 1],
    ["on", 1],
    ["2", 2],
    ["0", 0],
    ["false", 0],
    ["no", 0],
    ["off", 0],
    ["", 0],
  ])("parseConfig – TRUST_PROXY=%j → %s trusted proxies", (value, expected) => {
    expect(parseConfig({ TRUST_PROXY: value }).trustProxy).toBe(expected);
  });

  it("parseConfig – numeric limits and COOKIE_DOMAIN are read", () => {
    const c = parseConfig({ CONSOLE_CREATE_RATE_LIMIT: "5", CONSOLE_NEW_RATE_LIMIT: "2", INGEST_MAX_BODY_BYTES: "1024", COOKIE_DOMAIN: " example.org " });
    expect(c.consoleCreateRateLimit).toBe(5);
    expect(c.consoleNewRateLimit).toBe(2);
    expect(c.ingestMaxBodyBytes).toBe(1024);
    expect(c.cookieDomain).toBe("example.org");
  });

  it("parseConfig – transformation sandbox threads, queue and idle exit", () => {
    expect(parseConfig({})).toMatchObject({ transformationThreads: 2, transformationQueueMax: 8, transformationThreadIdleMs: 10_000 });
    expect(parseConfig({ TRANSFORMATION_THREADS: "4", TRANSFORMATION_QUEUE_MAX: "0", TRANSFORMATION_THREAD_IDLE_MS: "500" })).toMatchObject({
      transformationThreads: 4,
      transformationQueueMax: 0,
      transformationThreadIdleMs: 500,
    });
    expect(() => parseConfig({ TRANSFORMATION_THREADS: "0" })).toThrow(/TRANSFORMATION_THREADS/);
  });

  it("parseConfig – RETENTION_DAYS: 30 by default, 0 keeps forever, at most 3650", () => {
    expect(parseConfig({}).retentionDays).toBe(30);
    expect(parseConfig({ RETENTION_DAYS: "0" }).retentionDays).toBe(0);
    expect(parseConfig({ RETENTION_DAYS: "7" }).retentionDays).toBe(7);
    expect(() => parseConfig({ RETENTION_DAYS: "3651" })).toThrow(/RETENTION_DAYS/);
    expect(() => parseConfig({ RETENTION_DAYS: "-1" })).toThrow(/RETENTION_DAYS/);
  });

  it.each([
    ["http://localhost:3000", true],
    ["http://127.0.0.1:4000", true],
    ["http://127.9.9.9", true],
    ["http://[::1]:3000", true],
    ["http://app.localhost", true],
    ["https://hooks.example.com", false],
    ["http://10.0.0.5:3000", false],
    ["http://192.168.1.10", false],
    ["http://[fd12::1]", false],
  ])("parseConfig – DELIVERY_ALLOW_PRIVATE_NETWORKS defaults by PUBLIC_URL %s → %s", (publicUrl, expected) => {
    expect(parseConfig({ PUBLIC_URL: publicUrl }).deliveryAllowPrivateNetworks).toBe(expected);
  });

  it("parseConfig – portal branding: defaults, values, and a bad color or logo URL named in the error", () => {
    expect(parseConfig({}).portal).toEqual({ organizationName: "", brandColor: "#4f46e5", logoUrl: undefined, frameAncestors: [] });
    expect(parseConfig({ PORTAL_ORGANIZATION_NAME: " Acme ", PORTAL_BRAND_COLOR: "#0f766e", PORTAL_LOGO_URL: "https://acme.example/logo.svg" }).portal).toEqual(
      {
        organizationName: "Acme",
        brandColor: "#0f766e",
        logoUrl: "https://acme.example/logo.svg",
        frameAncestors: [],
      },
    );
    expect(parseConfig({ PORTAL_BRAND_COLOR: "#abc" }).portal.brandColor).toBe("#abc");
    expect(() => parseConfig({ PORTAL_BRAND_COLOR: "red; background:url(x)" })).toThrow(/PORTAL_BRAND_COLOR/);
    expect(() => parseConfig({ PORTAL_LOGO_URL: "javascript:alert(1)" })).toThrow(/PORTAL_LOGO_URL/);
  });

  it("parseConfig – PORTAL_FRAME_ANCESTORS: space or comma separated origins; anything that could break out of the CSP directive is named in the error", () => {
    expect(parseConfig({ PORTAL_FRAME_ANCESTORS: " https://App.example.com,  http://localhost:8080 https://*.acme.test " }).portal.frameAncestors).toEqual([
      "https://app.example.com",
      "http://localhost:8080",
      "https://*.acme.test",
    ]);
    for (const bad of ["https://a.example; script-src *", "'self'", "*", "https://a.example/path", "javascript:alert(1)", "https://a.example'"]) {
      expect(() => parseConfig({ PORTAL_FRAME_ANCESTORS: bad }), bad).toThrow(/PORTAL_FRAME_ANCESTORS/);
    }
  });

  it("parseConfig – DELIVERY_ALLOW_PRIVATE_NETWORKS: no PUBLIC_URL is localhost (allowed); an explicit value wins", () => {
    expect(parseConfig({}).deliveryAllowPrivateNetworks).toBe(true);
    expect(parseConfig({ PUBLIC_URL: "https://hooks.example.com", DELIVERY_ALLOW_PRIVATE_NETWORKS: "true" }).deliveryAllowPrivateNetworks).toBe(true);
    expect(parseConfig({ PUBLIC_URL: "http://127.0.0.1:3000", DELIVERY_ALLOW_PRIVATE_NETWORKS: "false" }).deliveryAllowPrivateNetworks).toBe(false);
  });

  it("parseConfig – OUTBOUND_GATEWAY_TEAMS: unset or empty = the gateway team (null), none = no team, else a comma list of team ids", () => {
    expect(parseConfig({}).outbound.gatewayTeams).toBeNull();
    expect(parseConfig({ OUTBOUND_GATEWAY_TEAMS: " " }).outbound.gatewayTeams).toBeNull();
    expect(parseConfig({ OUTBOUND_GATEWAY_TEAMS: "none" }).outbound.gatewayTeams).toEqual([]);
    expect(parseConfig({ OUTBOUND_GATEWAY_TEAMS: "tm_a, tm_b" }).outbound.gatewayTeams).toEqual(["tm_a", "tm_b"]);
    expect(() => parseConfig({ OUTBOUND_GATEWAY_TEAMS: "tm_a;drop" })).toThrow(/OUTBOUND_GATEWAY_TEAMS/);
  });

  it("parseConfig – DELIVERY_ALLOWED_CIDRS is a comma list of CIDRs or addresses; anything else is named in the error", () => {
    expect(parseConfig({}).deliveryAllowedCidrs).toEqual([]);
    expect(parseConfig({ DELIVERY_ALLOWED_CIDRS: " 10.0.0.0/8, fd12::/16 ,192.168.1.7," }).deliveryAllowedCidrs).toEqual([
      "10.0.0.0/8",
      "fd12::/16",
      "192.168.1.7",
    ]);
    for (const bad of ["10.0.0.0/33", "not-a-cidr", "10.0.0.0/8,example.com", "fd12::/129"]) {
      expect(() => parseConfig({ DELIVERY_ALLOWED_CIDRS: bad })).toThrow(/DELIVERY_ALLOWED_CIDRS/);
    }
  });

  it("parseConfig – MIGRATE_ON_START: true by default, false turns migrating at start off, nonsense is refused", () => {
    expect(parseConfig({}).migrateOnStart).toBe(true);
    expect(parseConfig({ MIGRATE_ON_START: "false" }).migrateOnStart).toBe(false);
    expect(parseConfig({ MIGRATE_ON_START: "0" }).migrateOnStart).toBe(false);
    expect(() => parseConfig({ MIGRATE_ON_START: "later" })).toThrow(/MIGRATE_ON_START/);
  });

  it("parseConfig – METRICS_PORT and METRICS_TOKEN: off by default, empty is unset, a port that collides with PORT (or npm start's worker's port + 1) is refused", () => {
    expect(parseConfig({}).metrics).toEqual({ port: undefined, token: undefined });
    expect(parseConfig({ METRICS_PORT: "", METRICS_TOKEN: "" }).metrics).toEqual({ port: undefined, token: undefined });
    expect(parseConfig({ METRICS_PORT: "9464", METRICS_TOKEN: "0123456789abcdef" }).metrics).toEqual({ port: 9464, token: "0123456789abcdef" });
    expect(() => parseConfig({ METRICS_PORT: "3000" })).toThrow(/METRICS_PORT: 3000 collides with PORT 3000/);
    expect(() => parseConfig({ METRICS_PORT: "2999" })).toThrow(/METRICS_PORT/);
    for (const bad of ["0", "65535", "http", "9464.5"]) expect(() => parseConfig({ METRICS_PORT: bad }), bad).toThrow(/METRICS_PORT/);
    expect(() => parseConfig({ METRICS_TOKEN: "short" })).toThrow(/METRICS_TOKEN/);
  });

  it("parseConfig – OUTBOUND_TENANT_GATEWAY_TYPE: off unless the operator turns it on", () => {
    expect(parseConfig({}).outbound.tenantGatewayType).toBe(false);
    expect(parseConfig({ OUTBOUND_TENANT_GATEWAY_TYPE: "true" }).outbound.tenantGatewayType).toBe(true);
    expect(() => parseConfig({ OUTBOUND_TENANT_GATEWAY_TYPE: "maybe" })).toThrow(/OUTBOUND_TENANT_GATEWAY_TYPE/);
  });
});
