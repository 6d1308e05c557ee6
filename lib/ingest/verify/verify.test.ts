import { createHash, createHmac, generateKeyPairSync, sign as cryptoSign } from "node:crypto";
import { sign as githubSign } from "@octokit/webhooks-methods";
import { Webhook } from "standardwebhooks";
import Stripe from "stripe";
import { describe, expect, it } from "vitest";
import { signatureHeaders, type VerificationInput, verifiesRequests, verifyRequest, VERIFICATION_PROVIDERS } from "@/lib/ingest/verify";

const NOW = Date.now();
const body = Buffer.from('{"id":"evt_1","amount":42}');
const h256 = (key: string | Buffer, data: string | Buffer, enc: "hex" | "base64") => createHmac("sha256", key).update(data).digest(enc);
const req = (over: Partial<VerificationInput>): VerificationInput => ({
  sourceType: "WEBHOOK",
  authType: null,
  auth: null,
  method: "POST",
  url: "https://hooks.example.com/e/abc",
  path: "/",
  query: "",
  headers: { "content-type": "application/json" },
  body,
  now: NOW,
  ...over,
});
/** valid → verified; other headers → failed with `status`; no headers → failed. */
function expectScheme(
  base: Partial<VerificationInput>,
  validHeaders: Record<string, string>,
  tamperedHeaders: Record<string, string>,
  rejectStatus: 401 | 200,
) {
  expect(verifyRequest(req({ ...base, headers: { ...req({}).headers, ...validHeaders } })).status).toBe("verified");
  expect(verifyRequest(req({ ...base, headers: { ...req({}).headers, ...tamperedHeaders } }))).toMatchObject({ status: "failed", rejectStatus });
  // Signatures cover the body; shared tokens and Basic credentials do not.
  const bodyResult = verifyRequest(req({ ...base, headers: { ...validHeaders }, body: Buffer.from("tampered") }));
  if (validHeaders.authorization || validHeaders["x-gitlab-token"]) expect(bodyResult.status).toBe("verified");
  else expect(bodyResult).toMatchObject({ status: "failed", rejectStatus });
  expect(verifyRequest(req({ ...base }))).toMatchObject({ status: "failed", rejectStatus });
}

describe("verifyRequest: generic schemes", () => {
  it("a source without credentials verifies nothing", () => {
    expect(verifyRequest(req({}))).toEqual({ status: "none" });
    expect(verifyRequest(req({ sourceType: "STRIPE" }))).toEqual({ status: "none" });
  });
  it("HMAC with each algorithm and encoding; 401 except md5 (200)", () => {
    for (const algorithm of ["sha1", "sha256", "sha512", "md5"] as const) {
      for (const encoding of ["hex", "base64", "base64url"] as const) {
        const auth = { algorithm, encoding, header_key: "X-Sig", webhook_secret_key: "s3cret" };
        const sig = createHmac(algorithm, "s3cret").update(body).digest(encoding);
        expectScheme(
          { authType: "HMAC", auth },
          { "x-sig": sig },
          { "x-sig": createHmac(algorithm, "other").update(body).digest(encoding) },
          algorithm === "md5" ? 200 : 401,
        );
      }
    }
  });
  it("BASIC_AUTH and API_KEY (header or query) answer 401", () => {
    const basic = (u: string, p: string) => `Basic ${Buffer.from(`${u}:${p}`).toString("base64")}`;
    expectScheme(
      { authType: "BASIC_AUTH", auth: { username: "u", password: "p" } },
      { authorization: basic("u", "p") },
      { authorization: basic("u", "x") },
      401,
    );
    const apiKey = { authType: "API_KEY", auth: { header_key: "X-Api-Key", api_key: "k1" } };
    expect(verifyRequest(req({ ...apiKey, headers: { "x-api-key": "k1" } })).status).toBe("verified");
    expect(verifyRequest(req({ ...apiKey, query: "X-Api-Key=k1" })).status).toBe("verified");
    expect(verifyRequest(req({ ...apiKey, headers: { "x-api-key": "k2" } }))).toMatchObject({ status: "failed", rejectStatus: 401 });
    expect(verifyRequest(req(apiKey))).toMatchObject({ status: "failed", rejectStatus: 401 });
  });
});

describe("verifyRequest: providers signed with their own libraries", () => {
  it("STRIPE (stripe's test header), with the 300 s tolerance", () => {
    const secret = "whsec_test";
    const stripe = new Stripe("sk_test_x");
    const header = stripe.webhooks.generateTestHeaderString({ payload: body.toString(), secret, timestamp: Math.floor(NOW / 1000) });
    const old = stripe.webhooks.generateTestHeaderString({ payload: body.toString(), secret, timestamp: Math.floor(NOW / 1000) - 301 });
    const wrong = stripe.webhooks.generateTestHeaderString({ payload: body.toString(), secret: "whsec_other", timestamp: Math.floor(NOW / 1000) });
    expectScheme({ sourceType: "STRIPE", auth: { webhook_secret_key: secret } }, { "stripe-signature": header }, { "stripe-signature": wrong }, 200);
    expect(verifyRequest(req({ sourceType: "STRIPE", auth: { webhook_secret_key: secret }, headers: { "stripe-signature": old } }))).toMatchObject({
      status: "failed",
      reason: expect.stringMatching(/tolerance/),
    });
    // A WEBHOOK source with auth_type STRIPE verifies the same way.
    expect(verifyRequest(req({ authType: "STRIPE", auth: { webhook_secret_key: secret }, headers: { "stripe-signature": header } })).status).toBe("verified");
  });
  it("GITHUB (@octokit/webhooks-methods)", async () => {
    const sig = await githubSign("gh-secret", body.toString());
    expectScheme(
      { sourceType: "GITHUB", auth: { webhook_secret_key: "gh-secret" } },
      { "x-hub-signature-256": sig },
      { "x-hub-signature-256": await githubSign("nope", body.toString()) },
      200,
    );
  });
  it("SVIX, RESEND, CLERK, OPENAI, REPLICATE (standardwebhooks)", () => {
    const secret = `whsec_${Buffer.from("0123456789abcdef0123456789abcdef").toString("base64")}`;
    const wh = new Webhook(secret);
    const other = new Webhook(`whsec_${Buffer.from("fedcba9876543210fedcba9876543210").toString("base64")}`);
    const at = new Date(NOW);
    const sig = wh.sign("msg_1", at, body.toString());
    const ts = String(Math.floor(NOW / 1000));
    for (const [type, prefix] of [
      ["SVIX", "svix"],
      ["RESEND", "svix"],
      ["CLERK", "svix"],
      ["OPENAI", "webhook"],
      ["REPLICATE", "webhook"],
    ] as const) {
      const headers = { [`${prefix}-id`]: "msg_1", [`${prefix}-timestamp`]: ts, [`${prefix}-signature`]: `v1,bogus ${sig}` };
      const tampered = { ...headers, [`${prefix}-signature`]: other.sign("msg_1", at, body.toString()) };
      expectScheme({ sourceType: type, auth: { webhook_secret_key: secret } }, headers, tampered, 200);
    }
  });
});

describe("verifyRequest: providers signed per their documentation", () => {
  const secret = "provider-secret";
  const ts = String(Math.floor(NOW / 1000));
  const cases: [string, Record<string, string>, Record<string, string>, 401 | 200, Record<string, string>?][] = [
    ["SHOPIFY", { "x-shopify-hmac-sha256": h256(secret, body, "base64") }, { "x-shopify-hmac-sha256": h256("x", body, "base64") }, 200],
    [
      "SLACK",
      { "x-slack-signature": `v0=${h256(secret, `v0:${ts}:${body.toString()}`, "hex")}`, "x-slack-request-timestamp": ts },
      { "x-slack-signature": "v0=00", "x-slack-request-timestamp": ts },
      200,
    ],
    ["PADDLE", { "paddle-signature": `ts=${ts};h1=${h256(secret, `${ts}:${body.toString()}`, "hex")}` }, { "paddle-signature": `ts=${ts};h1=00` }, 200],
    ["TYPEFORM", { "typeform-signature": `sha256=${h256(secret, body, "base64")}` }, { "typeform-signature": "sha256=AA==" }, 200],
    [
      "ZOOM",
      { "x-zm-signature": `v0=${h256(secret, `v0:${ts}:${body.toString()}`, "hex")}`, "x-zm-request-timestamp": ts },
      { "x-zm-signature": "v0=00", "x-zm-request-timestamp": ts },
      200,
    ],
    ["LINEAR", { "linear-signature": h256(secret, body, "hex") }, { "linear-signature": h256("x", body, "hex") }, 200],
    ["XERO", { "x-xero-signature": h256(secret, body, "base64") }, { "x-xero-signature": h256("x", body, "base64") }, 200],
    ["WOOCOMMERCE", { "x-wc-webhook-signature": h256(secret, body, "base64") }, { "x-wc-webhook-signature": "AA==" }, 200],
    [
      "HUBSPOT",
      {
        "x-hubspot-signature-v3": h256(secret, `POST${"https://hooks.example.com/e/abc"}${body.toString()}${NOW}`, "base64"),
        "x-hubspot-request-timestamp": String(NOW),
      },
      { "x-hubspot-signature-v3": "AA==", "x-hubspot-request-timestamp": String(NOW) },
      200,
    ],
    ["VERCEL", { "x-vercel-signature": createHmac("sha1", secret).update(body).digest("hex") }, { "x-vercel-signature": "00" }, 200],
    ["INTERCOM", { "x-hub-signature": `sha1=${createHmac("sha1", secret).update(body).digest("hex")}` }, { "x-hub-signature": "sha1=00" }, 200],
    [
      "SQUARE",
      { "x-square-hmacsha256-signature": h256(secret, `https://hooks.example.com/e/abc${body.toString()}`, "base64") },
      { "x-square-hmacsha256-signature": "AA==" },
      200,
    ],
    ["WORKOS", { "workos-signature": `t=${NOW}, v1=${h256(secret, `${NOW}.${body.toString()}`, "hex")}` }, { "workos-signature": `t=${NOW}, v1=00` }, 200],
    [
      "X",
      { "x-twitter-webhooks-signature": `sha256=${h256(secret, body, "base64")}` },
      { "x-twitter-webhooks-signature": "sha256=AA==" },
      200,
      { api_key: secret },
    ],
    ["GITLAB", { "x-gitlab-token": secret }, { "x-gitlab-token": "wrong" }, 401, { api_key: secret }],
    [
      "POSTMARK",
      { authorization: `Basic ${Buffer.from("pm:pw").toString("base64")}` },
      { authorization: `Basic ${Buffer.from("pm:no").toString("base64")}` },
      401,
      { username: "pm", password: "pw" },
    ],
    [
      "CHARGEBEE_BILLING",
      { authorization: `Basic ${Buffer.from("cb:pw").toString("base64")}` },
      { authorization: "Basic eDp5" },
      401,
      { username: "cb", password: "pw" },
    ],
  ];
  for (const [type, valid, tampered, status, auth] of cases) {
    it(`${type}: valid, wrong, tampered and missing`, () =>
      expectScheme({ sourceType: type, auth: auth ?? { webhook_secret_key: secret } }, valid, tampered, status));
  }

  it("SLACK refuses a timestamp older than 5 minutes", () => {
    const old = String(Math.floor(NOW / 1000) - 301);
    const r = verifyRequest(
      req({
        sourceType: "SLACK",
        auth: { webhook_secret_key: secret },
        headers: { "x-slack-signature": `v0=${h256(secret, `v0:${old}:${body.toString()}`, "hex")}`, "x-slack-request-timestamp": old },
      }),
    );
    expect(r).toMatchObject({ status: "failed", reason: expect.stringMatching(/tolerance/) });
  });

  it("ZOOM and SENDGRID refuse timestamps older than 5 minutes", () => {
    const old = String(Math.floor(NOW / 1000) - 301);
    const zoom = verifyRequest(
      req({
        sourceType: "ZOOM",
        auth: { webhook_secret_key: secret },
        headers: { "x-zm-signature": `v0=${h256(secret, `v0:${old}:${body.toString()}`, "hex")}`, "x-zm-request-timestamp": old },
      }),
    );
    expect(zoom).toMatchObject({ status: "failed", reason: expect.stringMatching(/tolerance/) });
    const ec = generateKeyPairSync("ec", { namedCurve: "P-256" });
    const pub = ec.publicKey.export({ format: "der", type: "spki" }).toString("base64");
    const sig = cryptoSign("sha256", Buffer.concat([Buffer.from(old), body]), ec.privateKey).toString("base64");
    const sg = verifyRequest(
      req({
        sourceType: "SENDGRID",
        auth: { webhook_secret_key: pub },
        headers: { "x-twilio-email-event-webhook-signature": sig, "x-twilio-email-event-webhook-timestamp": old },
      }),
    );
    expect(sg).toMatchObject({ status: "failed", reason: expect.stringMatching(/tolerance/) });
  });

  it("TWILIO: form bodies (URL + sorted fields, HMAC-SHA1) and JSON bodies (bodySHA256)", () => {
    const form = Buffer.from("To=%2B1555&From=%2B1666&Body=hi");
    const data = "https://hooks.example.com/e/abc" + "Bodyhi" + "From+1666" + "To+1555";
    const sig = createHmac("sha1", secret).update(data).digest("base64");
    const base = { sourceType: "TWILIO", auth: { webhook_secret_key: secret }, body: form };
    expect(verifyRequest(req({ ...base, headers: { "content-type": "application/x-www-form-urlencoded", "x-twilio-signature": sig } })).status).toBe(
      "verified",
    );
    expect(verifyRequest(req({ ...base, headers: { "content-type": "application/x-www-form-urlencoded", "x-twilio-signature": "AA==" } }))).toMatchObject({
      status: "failed",
      rejectStatus: 200,
    });
    const url = `https://hooks.example.com/e/abc?bodySHA256=${createHash("sha256").update(body).digest("hex")}`;
    const jsonSig = createHmac("sha1", secret).update(url).digest("base64");
    expect(
      verifyRequest(
        req({
          sourceType: "TWILIO",
          auth: { webhook_secret_key: secret },
          url,
          headers: { "content-type": "application/json", "x-twilio-signature": jsonSig },
        }),
      ).status,
    ).toBe("verified");
    expect(
      verifyRequest(
        req({
          sourceType: "TWILIO",
          auth: { webhook_secret_key: secret },
          url,
          body: Buffer.from("{}"),
          headers: { "content-type": "application/json", "x-twilio-signature": jsonSig },
        }),
      ).status,
    ).toBe("failed");
  });

  it("MAILGUN: the signature in a JSON body or form fields", () => {
    const sigOf = (t: string, k: string) => h256(secret, t + k, "hex");
    const json = Buffer.from(JSON.stringify({ signature: { timestamp: ts, token: "tok", signature: sigOf(ts, "tok") }, "event-data": {} }));
    expect(verifyRequest(req({ sourceType: "MAILGUN", auth: { webhook_secret_key: secret }, body: json })).status).toBe("verified");
    const form = Buffer.from(`timestamp=${ts}&token=tok&signature=${sigOf(ts, "tok")}`);
    expect(
      verifyRequest(
        req({ sourceType: "MAILGUN", auth: { webhook_secret_key: secret }, body: form, headers: { "content-type": "application/x-www-form-urlencoded" } }),
      ).status,
    ).toBe("verified");
    const badJson = Buffer.from(JSON.stringify({ signature: { timestamp: ts, token: "tok", signature: "00" } }));
    expect(verifyRequest(req({ sourceType: "MAILGUN", auth: { webhook_secret_key: secret }, body: badJson }))).toMatchObject({
      status: "failed",
      rejectStatus: 200,
    });
  });

  it("DISCORD and TELNYX (Ed25519), SENDGRID (ECDSA P-256)", () => {
    const ed = generateKeyPairSync("ed25519");
    const raw = ed.publicKey.export({ format: "der", type: "spki" }).subarray(12);
    const discordSig = cryptoSign(null, Buffer.concat([Buffer.from(ts), body]), ed.privateKey).toString("hex");
    expectScheme(
      { sourceType: "DISCORD", auth: { public_key: raw.toString("hex") } },
      { "x-signature-ed25519": discordSig, "x-signature-timestamp": ts },
      { "x-signature-ed25519": "00".repeat(64), "x-signature-timestamp": ts },
      200,
    );
    const telnyxSig = cryptoSign(null, Buffer.concat([Buffer.from(`${ts}|`), body]), ed.privateKey).toString("base64");
    expectScheme(
      { sourceType: "TELNYX", auth: { public_key: raw.toString("base64") } },
      { "telnyx-signature-ed25519": telnyxSig, "telnyx-timestamp": ts },
      { "telnyx-signature-ed25519": "AA==", "telnyx-timestamp": ts },
      200,
    );
    const ec = generateKeyPairSync("ec", { namedCurve: "P-256" });
    const pub = ec.publicKey.export({ format: "der", type: "spki" }).toString("base64");
    const sgSig = cryptoSign("sha256", Buffer.concat([Buffer.from(ts), body]), ec.privateKey).toString("base64");
    expectScheme(
      { sourceType: "SENDGRID", auth: { webhook_secret_key: pub } },
      { "x-twilio-email-event-webhook-signature": sgSig, "x-twilio-email-event-webhook-timestamp": ts },
      { "x-twilio-email-event-webhook-signature": "AA==", "x-twilio-email-event-webhook-timestamp": ts },
      200,
    );
  });
});

describe("handshakes", () => {
  it("SLACK url_verification answers the challenge once the signature verifies", () => {
    const b = Buffer.from(JSON.stringify({ type: "url_verification", challenge: "ch4ll3nge" }));
    const ts = String(Math.floor(NOW / 1000));
    const r = verifyRequest(
      req({
        sourceType: "SLACK",
        auth: { webhook_secret_key: "s" },
        body: b,
        headers: { "x-slack-signature": `v0=${h256("s", `v0:${ts}:${b.toString()}`, "hex")}`, "x-slack-request-timestamp": ts },
      }),
    );
    expect(r).toEqual({
      status: "verified",
      handshake: { status: 200, headers: { "content-type": "application/json; charset=utf-8" }, body: '{"challenge":"ch4ll3nge"}' },
    });
    expect(verifyRequest(req({ sourceType: "SLACK", auth: { webhook_secret_key: "s" }, body: b })).status).toBe("failed");
  });
  it("ZOOM endpoint.url_validation, X CRC, NYLAS and EBAY challenges", () => {
    const zoom = verifyRequest(
      req({
        sourceType: "ZOOM",
        auth: { webhook_secret_key: "zs" },
        body: Buffer.from(JSON.stringify({ event: "endpoint.url_validation", payload: { plainToken: "pt" } })),
      }),
    );
    expect(zoom).toMatchObject({ handshake: { status: 200, body: JSON.stringify({ plainToken: "pt", encryptedToken: h256("zs", "pt", "hex") }) } });
    const crc = verifyRequest(req({ sourceType: "X", auth: { api_key: "xs" }, method: "GET", query: "crc_token=abc", body: Buffer.alloc(0) }));
    expect(crc).toMatchObject({ handshake: { body: JSON.stringify({ response_token: `sha256=${h256("xs", "abc", "base64")}` }) } });
    expect(verifyRequest(req({ sourceType: "NYLAS", method: "GET", query: "challenge=n1" }))).toMatchObject({ status: "none", handshake: { body: "n1" } });
    const ebay = verifyRequest(
      req({
        sourceType: "EBAY",
        auth: { webhook_secret_key: "tok" },
        method: "GET",
        url: "https://h.example/e/abc?challenge_code=c1",
        query: "challenge_code=c1",
      }),
    );
    expect(ebay).toMatchObject({
      handshake: { body: JSON.stringify({ challengeResponse: createHash("sha256").update("c1tokhttps://h.example/e/abc").digest("hex") }) },
    });
  });

  it("DISCORD PING and TWITCH webhook_callback_verification are answered once their signature verifies", () => {
    const ed = generateKeyPairSync("ed25519");
    const raw = ed.publicKey.export({ format: "der", type: "spki" }).subarray(12).toString("hex");
    const ping = Buffer.from('{"type":1}');
    const ts = String(Math.floor(NOW / 1000));
    const pingSig = cryptoSign(null, Buffer.concat([Buffer.from(ts), ping]), ed.privateKey).toString("hex");
    expect(
      verifyRequest(
        req({ sourceType: "DISCORD", auth: { public_key: raw }, body: ping, headers: { "x-signature-ed25519": pingSig, "x-signature-timestamp": ts } }),
      ),
    ).toEqual({
      status: "verified",
      handshake: { status: 200, headers: { "content-type": "application/json; charset=utf-8" }, body: '{"type":1}' },
    });
    expect(
      verifyRequest(
        req({ sourceType: "DISCORD", auth: { public_key: raw }, body: ping, headers: { "x-signature-ed25519": "00".repeat(64), "x-signature-timestamp": ts } }),
      ),
    ).toMatchObject({ status: "failed" });
    expect(
      verifyRequest(
        req({ sourceType: "DISCORD", auth: { public_key: raw }, body: ping, headers: { "x-signature-ed25519": "00".repeat(64), "x-signature-timestamp": ts } }),
      ),
    ).not.toHaveProperty("handshake");

    const challenge = Buffer.from('{"challenge":"pogchamp-kappa-360noscope-vohiyo","subscription":{"type":"channel.follow"}}');
    const at = new Date(NOW).toISOString().replace("Z", "123456Z");
    const headers = {
      "twitch-eventsub-message-id": "e76c6bd4",
      "twitch-eventsub-message-timestamp": at,
      "twitch-eventsub-message-type": "webhook_callback_verification",
    };
    const signed = { ...headers, "twitch-eventsub-message-signature": `sha256=${h256("tw-secret", `e76c6bd4${at}${challenge.toString()}`, "hex")}` };
    expect(verifyRequest(req({ sourceType: "TWITCH", auth: { webhook_secret_key: "tw-secret" }, body: challenge, headers: signed }))).toEqual({
      status: "verified",
      handshake: { status: 200, headers: { "content-type": "text/plain; charset=utf-8" }, body: "pogchamp-kappa-360noscope-vohiyo" },
    });
    expect(verifyRequest(req({ sourceType: "TWITCH", auth: { webhook_secret_key: "other" }, body: challenge, headers: signed })).status).toBe("failed");
    const old = new Date(NOW - 11 * 60_000).toISOString();
    const stale = {
      ...headers,
      "twitch-eventsub-message-timestamp": old,
      "twitch-eventsub-message-signature": `sha256=${h256("tw-secret", `e76c6bd4${old}${challenge.toString()}`, "hex")}`,
    };
    expect(verifyRequest(req({ sourceType: "TWITCH", auth: { webhook_secret_key: "tw-secret" }, body: challenge, headers: stale }))).toMatchObject({
      status: "failed",
      reason: "timestamp outside the 10-minute tolerance",
    });
  });

  it("TWITCH notifications: valid, tampered and missing signatures", () => {
    const at = new Date(NOW).toISOString();
    const base = { "twitch-eventsub-message-id": "m1", "twitch-eventsub-message-timestamp": at };
    expectScheme(
      { sourceType: "TWITCH", auth: { webhook_secret_key: "tw" } },
      { ...base, "twitch-eventsub-message-signature": `sha256=${h256("tw", `m1${at}${body.toString()}`, "hex")}` },
      { ...base, "twitch-eventsub-message-signature": "sha256=00" },
      200,
    );
  });

  it("a handshake is answered whoever asks, but marks the request verified only when its signature checks out", () => {
    const body = Buffer.from(JSON.stringify({ event: "endpoint.url_validation", payload: { plainToken: "pt" }, extra: "forged?" }));
    // Unsigned (or badly signed): answered, not verified, not rejected.
    expect(verifyRequest(req({ sourceType: "ZOOM", auth: { webhook_secret_key: "zs" }, body })).status).toBe("none");
    expect(
      verifyRequest(
        req({
          sourceType: "ZOOM",
          auth: { webhook_secret_key: "zs" },
          body,
          headers: { "x-zm-signature": "v0=00", "x-zm-request-timestamp": String(Math.floor(NOW / 1000)) },
        }),
      ).status,
    ).toBe("none");
    // Signed by Zoom: verified.
    const ts = String(Math.floor(NOW / 1000));
    const signed = verifyRequest(
      req({
        sourceType: "ZOOM",
        auth: { webhook_secret_key: "zs" },
        body,
        headers: { "x-zm-signature": `v0=${h256("zs", `v0:${ts}:${body.toString()}`, "hex")}`, "x-zm-request-timestamp": ts },
      }),
    );
    expect(signed.status).toBe("verified");
    expect(signed).toHaveProperty("handshake");
    expect(verifyRequest(req({ sourceType: "MAILCHIMP", auth: { webhook_secret_key: "m" }, method: "GET", body: Buffer.alloc(0) })).status).toBe("none");
    expect(verifyRequest(req({ sourceType: "X", auth: { api_key: "xs" }, method: "GET", query: "crc_token=abc", body: Buffer.alloc(0) })).status).toBe("none");
  });
});

describe("verifiesRequests", () => {
  it("is true for the generic schemes and the providers with a scheme, false for types only accepted", () => {
    for (const t of ["HMAC", "API_KEY", "BASIC_AUTH", "STRIPE", "GITHUB", "ZOOM", "hmac"]) expect(verifiesRequests(t), t).toBe(true);
    for (const t of ["COINBASE", "PAYPAL", "AWS_SNS", "MAILCHIMP", "", null, undefined]) expect(verifiesRequests(t), String(t)).toBe(false);
    // Such a type's requests are stored unverified, never rejected.
    expect(verifyRequest(req({ sourceType: "COINBASE", auth: { webhook_secret_key: "c" } })).status).toBe("none");
  });
});

it("documents at least 20 providers", () => {
  expect(VERIFICATION_PROVIDERS.filter((p) => !["HMAC", "BASIC_AUTH", "API_KEY"].includes(p.type)).length).toBeGreaterThanOrEqual(20);
});

describe("signatureHeaders (requests Hookyard itself sends into a source)", () => {
  const verified = (base: Partial<VerificationInput>) => {
    const signed = signatureHeaders({ sourceType: base.sourceType ?? "WEBHOOK", authType: base.authType ?? null, auth: base.auth ?? null }, body);
    expect(signed).not.toBeNull();
    return verifyRequest(req({ ...base, headers: { ...req({}).headers, ...signed } })).status;
  };

  it("generic HMAC (every algorithm and encoding), API key and Basic auth: signed with the source's own credentials, so its verification passes", () => {
    for (const algorithm of ["sha1", "sha256", "sha512"]) {
      for (const encoding of ["hex", "base64", "base64url"]) {
        expect(verified({ authType: "HMAC", auth: { algorithm, encoding, header_key: "X-Sig", webhook_secret_key: "s3cret" } })).toBe("verified");
      }
    }
    expect(verified({ authType: "API_KEY", auth: { header_key: "X-Api-Key", api_key: "k-1" } })).toBe("verified");
    expect(verified({ authType: "BASIC_AUTH", auth: { username: "u", password: "p:w" } })).toBe("verified");
  });

  it("a source without verification gets no headers (stored unverified); a provider scheme is never forged (null)", () => {
    expect(signatureHeaders({ sourceType: "WEBHOOK", authType: null, auth: null }, body)).toEqual({});
    expect(verifyRequest(req({})).status).toBe("none");
    expect(signatureHeaders({ sourceType: "STRIPE", authType: null, auth: { webhook_secret_key: "whsec_x" } }, body)).toBeNull();
    expect(signatureHeaders({ sourceType: "WEBHOOK", authType: "GITLAB", auth: { api_key: "t" } }, body)).toBeNull();
  });
});
