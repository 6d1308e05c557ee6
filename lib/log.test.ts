import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { createRootLogger, logFormat, logger, replaceRootLogger, scrubText, withLogContext } from "@/lib/log";

/** A root logger at `level` whose JSON lines are kept in memory. */
function capture(level = "debug") {
  const lines: string[] = [];
  replaceRootLogger(createRootLogger({ level, format: "json", destination: { write: (l: string) => void lines.push(l) } }));
  return { lines, json: () => lines.map((l) => JSON.parse(l) as Record<string, unknown>) };
}

const SECRETS = {
  authorization: "Bearer s3cr3t-bearer-value",
  cookie: "session=c00kie-value",
  "set-cookie": "hookyard_session=setc00kie-value; Path=/",
  "x-hookyard-signature": "sig-hookyard-value",
  "webhook-signature": "v1,sig-standard-value",
  "stripe-signature": "t=1,v1=sig-stripe-value",
  "x-hub-signature-256": "sha256=sig-github-value",
  "x-api-key": "apikey-header-value",
  "x-shopify-hmac-sha256": "not-a-secret-name-but-kept",
};
const SECRET_VALUES = Object.entries(SECRETS)
  .filter(([k]) => k !== "x-shopify-hmac-sha256")
  .map(([, v]) => v.replace(/^(Bearer |v1,|t=1,v1=|sha256=|session=|hookyard_session=)/, "").replace(/; Path=\/$/, ""));

describe("logger", () => {
  it("writes JSON lines with time, level, scope, msg, and the request and trace ids of the context", () => {
    const out = capture();
    const log = logger("unit");
    log.info("hello");
    withLogContext({ request_id: "rid-1", trace_id: "0af7651916cd43dd8448eb211c80319c" }, () => log.warn("inside", { n: 1, msg: "clash" }));
    const [a, b] = out.json();
    expect(a).toMatchObject({ level: "info", scope: "unit", msg: "hello" });
    expect(typeof a.time).toBe("number");
    expect(Math.abs((a.time as number) - Date.now())).toBeLessThan(60_000);
    expect(a.request_id).toBeUndefined();
    expect(b).toMatchObject({
      level: "warn",
      scope: "unit",
      msg: "inside",
      n: 1,
      extra_msg: "clash",
      request_id: "rid-1",
      trace_id: "0af7651916cd43dd8448eb211c80319c",
    });
  });

  it("honours the level and logs an Error with its stack under err", () => {
    const out = capture("warn");
    const log = logger("unit");
    log.info("dropped");
    log.debug("dropped");
    log.error("failed", new Error("boom"));
    const lines = out.json();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: "error", msg: "failed", err: { type: "Error", message: "boom" } });
    expect(String((lines[0].err as { stack: string }).stack)).toContain("log.test.ts");
  });

  it("never writes secrets given as headers, nested objects, error messages or free text", () => {
    const out = capture();
    const log = logger("unit");
    log.info("headers", { headers: SECRETS });
    log.warn("nested", { request: { headers: SECRETS, body: { password: "pa55word-value", token: "t0ken-value" } } });
    log.error("as a string", `failed with Authorization: Bearer s3cr3t-bearer-value and stripe-signature=t=1,v1=sig-stripe-value`);
    const err = Object.assign(new Error("refused key hky_0123456789abcdef and secret=plain-secret-value"), { config: { headers: SECRETS } });
    log.error("as an error", err);
    log.error("in the message: api_key=msg-apikey-value cli_abcdefghijkl");
    const text = out.lines.join("");
    for (const secret of [
      ...SECRET_VALUES,
      "pa55word-value",
      "t0ken-value",
      "hky_0123456789abcdef",
      "plain-secret-value",
      "msg-apikey-value",
      "cli_abcdefghijkl",
    ])
      expect(text, secret).not.toContain(secret);
    expect(text).toContain("[REDACTED]");
    // Names that are not secrets stay readable.
    expect(text).toContain("not-a-secret-name-but-kept");
    expect(out.json()[0]).toMatchObject({ headers: { authorization: "[REDACTED]", "x-hub-signature-256": "[REDACTED]" } });
  });

  it("scrubs secrets out of free text and leaves the rest", () => {
    expect(scrubText("GET /e/abc?token=xyz123&debug=1")).toBe("GET /e/abc?token=[REDACTED]&debug=1");
    expect(scrubText("connect ECONNREFUSED 127.0.0.1:5432")).toBe("connect ECONNREFUSED 127.0.0.1:5432");
  });

  it("chooses JSON off a terminal and pretty on one, unless LOG_FORMAT says", () => {
    expect(logFormat(null, false)).toBe("json");
    expect(logFormat(null, true)).toBe("pretty");
    expect(logFormat("json", true)).toBe("json");
    expect(logFormat("pretty", false)).toBe("pretty");
  });

  it.each(["json", "pretty"])("loses no line when a short-lived process exits right after logging (%s)", (format) => {
    const script = `import { logger } from "./lib/log.ts"; for (let i = 0; i < 200; i++) logger("short").info("line " + i); process.exit(0);`;
    const r = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
      env: { ...process.env, LOG_FORMAT: format, LOG_LEVEL: "info" },
      encoding: "utf8",
    });
    expect(r.stderr).toBe("");
    const lines = r.stdout.trim().split("\n");
    expect(lines).toHaveLength(200);
    expect(lines[199]).toContain("line 199");
    if (format === "json") expect(JSON.parse(lines[0])).toMatchObject({ scope: "short", msg: "line 0", level: "info" });
    else expect(lines[0]).toMatch(/INFO.*\[short\] line 0/);
  });
});
