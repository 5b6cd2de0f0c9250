/**
 * Largest API request body the reference server reads, in bytes,
 * answering 413 `payload_too_large` over it; the OpenAPI document states it.
 * Valid bodies stay far below it (the longest field, an action-response
 * message, is `ACTION_RESPONSE_MESSAGE_MAX` characters); without a bound a
 * body of about 512 MiB made the runtime fail to build the string and the
 * server answered 500.
 */
export const MAX_BODY_BYTES = 1_048_576;
