/**
 * The outbound service's errors: the body `{status, message, data?}` (docs/outbound.md "Credentials" shows
 * them) that the outbound API wrapper (lib/outbound/http.ts) answers with. Domain code of the outbound
 * service throws these; they live below the wrapper, so the service's modules never import the wrapper.
 */

/** An error with the outbound body `{status, message, data?}`: `status` is the HTTP status. */
export class OutboundError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

/** 404 `{status: 404, message: what}`. */
export const outboundNotFound = (what = "not found") => new OutboundError(404, what);

/** 422 `{status: 422, message: "validation error", data: messages}`. */
export const outboundInvalid = (messages: string[]) => new OutboundError(422, "validation error", messages);
