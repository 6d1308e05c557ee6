/**
 * The outbound service's constructors of {@link AppError} (docs/errors.md): its domain code throws
 * these, and its API wrapper (lib/outbound/http.ts) answers them as `{status, message, data?}`
 * (docs/outbound.md "Credentials" shows them). They live below the wrapper, so the service's modules
 * never import it.
 */
import { AppError } from "@/lib/http/errors";

/** 400 `{status: 400, message}`, with `data` when given (`{error: "destination_disabled"}`, `{param}`). */
export const outboundBadRequest = (message: string, data?: Record<string, unknown>) => new AppError("BAD_REQUEST", message, data ? { data } : {});

/** 403 `{status: 403, message: "forbidden"}`: admin-only, or another tenant's. */
export const outboundForbidden = (message = "forbidden") => new AppError("FORBIDDEN", message);

/** 404 `{status: 404, message: what}`. */
export const outboundNotFound = (what = "not found") => new AppError("NOT_FOUND", what);

/** 422 `{status: 422, message: "validation error", data: messages}`. */
export const outboundInvalid = (messages: string[]) => new AppError("VALIDATION", "validation error", { messages });
