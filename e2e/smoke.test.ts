import { describe, expect, it } from "vitest";
import { BASE_URL, newTestUrl, preview } from "./support/client";

describe("smoke", () => {
  it("creates a test URL and captures a request", async () => {
    const t = await newTestUrl({ name: "smoke" });
    expect(t.name).toBe("smoke");
    const res = await fetch(`${t.ingest_url.replace(/^http:\/\/[^/]+/, BASE_URL)}/x?y=1`, { method: "POST", body: "hi" });
    expect(res.status).toBe(200);
    const p = await preview(t.id);
    expect(p.requests[0].path).toBe("/x");
    expect(p.requests[0].body).toBe("hi");
  });
});
