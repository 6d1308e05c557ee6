/**
 * What an HTTP header may hold (RFC 9110 §5.1 field names, §5.5 field values), for settings stored now and
 * sent with every delivery later: a value outside these would make every delivery fail (undici refuses
 * it), so destinations refuse it when they are created or updated (docs/outbound.md "Destinations and
 * their types", docs/gateway-api.md destinations).
 */

/** A header name: an RFC 9110 token. */
export const HEADER_NAME_TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** A header value: tab, space, visible ASCII and obs-text (U+0080–U+00FF); no CR, LF or other control character. */
export const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

/** The validation message for a header value outside {@link HEADER_VALUE}. */
export const HEADER_VALUE_MESSAGE = "must not contain CR, LF or other control characters (tab excepted), nor characters beyond U+00FF";
