/** Which secret signs dashboard sessions (docs/dashboard.md "Signing in", docs/operations.md "One key"). */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeEach, describe, expect, it, vi } from "vitest";

const dirs: string[] = [];
/** authSecret() of a fresh module instance under settings `env`, with a DATA_DIR of its own (another machine). */
async function secretOf(env: Record<string, string>) {
  vi.resetModules();
  vi.unstubAllEnvs();
  const dataDir = mkdtempSync(path.join(tmpdir(), "hookyard-auth-secret-"));
  dirs.push(dataDir);
  for (const name of ["AUTH_SECRET", "SECRET_KEY", "DATABASE_URL"]) vi.stubEnv(name, undefined);
  vi.stubEnv("DATA_DIR", dataDir);
  for (const [k, v] of Object.entries(env)) vi.stubEnv(k, v);
  const { authSecret } = await import("@/lib/teams/dashboard-session");
  return { secret: authSecret(), dataDir };
}

describe("authSecret", () => {
  beforeEach(() => vi.unstubAllEnvs());
  afterAll(() => {
    vi.unstubAllEnvs();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it("two machines with the same SECRET_KEY and no AUTH_SECRET sign sessions alike; another key does not", async () => {
    const a = await secretOf({ SECRET_KEY: "one key for every process, 32+ chars" });
    const b = await secretOf({ SECRET_KEY: "one key for every process, 32+ chars" });
    const other = await secretOf({ SECRET_KEY: "a different key of the same length!!" });
    expect(a.secret).toBe(b.secret);
    expect(a.secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(other.secret).not.toBe(a.secret);
    // Not the key itself, nor the key that encrypts secrets.
    expect(a.secret).not.toContain("one key");
  });

  it("AUTH_SECRET wins; with neither setting each machine keeps a random secret in DATA_DIR/auth-secret", async () => {
    const set = await secretOf({ SECRET_KEY: "one key for every process, 32+ chars", AUTH_SECRET: "x".repeat(40) });
    expect(set.secret).toBe("x".repeat(40));
    const a = await secretOf({});
    const b = await secretOf({});
    expect(a.secret).not.toBe(b.secret);
    expect(readFileSync(path.join(a.dataDir, "auth-secret"), "utf8").trim()).toBe(a.secret);
  });
});
