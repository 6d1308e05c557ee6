/**
 * The preview of a stored body that the APIs show (the console's captured requests, the gateway's
 * requests and events): parsed JSON, UTF-8 text or base64, cut at PREVIEW_BODY_BYTES.
 */
import { parseCapturedJson } from "@/lib/http/json-input";

/** Bytes of a body shown in a preview. */
export const PREVIEW_BODY_BYTES = 64 * 1024;

/** A previewed body: `body` as `body_encoding` says; `body_truncated` when only its first bytes are given. */
type BodyPreview =
  | { body: null; body_encoding: null; body_truncated: boolean }
  | { body: string | unknown[] | Record<string, unknown>; body_encoding: "json" | "text" | "base64"; body_truncated: boolean };

/** `bytes` without an incomplete UTF-8 sequence at its end (what a cut inside a character leaves). */
function withoutPartialUtf8Tail(bytes: Buffer): Buffer {
  let lead = bytes.length - 1;
  while (lead >= 0 && bytes.length - lead <= 3 && (bytes[lead] & 0xc0) === 0x80) lead--;
  if (lead < 0) return bytes;
  const b = bytes[lead];
  const width = b >= 0xf8 ? 1 : b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
  return bytes.length - lead < width ? bytes.subarray(0, lead) : bytes;
}

/**
 * A body preview: parsed JSON when the whole body is JSON, else UTF-8 text, else base64 (binary);
 * only the first {@link PREVIEW_BODY_BYTES} bytes are given, and then it is never parsed as JSON.
 */
export function bodyPreview(body: Buffer | null, size: number): BodyPreview {
  if (!body || body.length === 0) return { body: null, body_encoding: null, body_truncated: size > 0 };
  const truncated = body.length > PREVIEW_BODY_BYTES || size > body.length;
  const slice = body.subarray(0, PREVIEW_BODY_BYTES);
  // A cut can fall inside a multi-byte character: judge (and show) the text without that partial character.
  const textBytes = truncated ? withoutPartialUtf8Tail(slice) : slice;
  const text = new TextDecoder("utf-8", { fatal: false }).decode(textBytes);
  const isText = !text.includes("\uFFFD") || Buffer.from(text, "utf8").equals(textBytes);
  if (!truncated && isText) {
    const trimmed = text.trim();
    if (trimmed.startsWith("{") || trimmed.startsWith("[")) {
      try {
        return { body: parseCapturedJson(trimmed) as unknown[] | Record<string, unknown>, body_encoding: "json", body_truncated: false };
      } catch {
        /* not JSON: shown as text */
      }
    }
  }
  if (isText) return { body: text, body_encoding: "text", body_truncated: truncated };
  return { body: slice.toString("base64"), body_encoding: "base64", body_truncated: truncated };
}
