import * as z from "zod";

/**
 * An RFC 5321 mailbox with a host name: the local part a dot-atom (atoms of
 * letters, digits and ``!#$%&'*+/=?^_`{|}~-`` joined by single dots, so no
 * leading, trailing or doubled dot) or a quoted string (printable ASCII
 * between double quotes, `"` and `\` escaped by a backslash), then
 * dot-separated host-name labels of 1 to 63 letters, digits and inner
 * hyphens. What the OpenAPI `email` format (RFC 5321's Mailbox) admits, but
 * address literals (`a@[192.0.2.1]`). Flag-free, so the OpenAPI document
 * carries it as the `pattern` of every email field (docs/spec-decisions.md,
 * "Email addresses").
 */
export const EMAIL_PATTERN =
  /^(?:[a-zA-Z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[a-zA-Z0-9!#$%&'*+/=?^_`{|}~-]+)*|"(?:[\x20\x21\x23-\x5b\x5d-\x7e]|\\[\x20-\x7e])*")@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$/;

/**
 * An email address in a request, by {@link EMAIL_PATTERN}: the client checks
 * it before sending, the reference server answers 400 validation_error, and
 * the document states it as `format: email` with the pattern.
 */
export const Email = z.email({ pattern: EMAIL_PATTERN, error: "Invalid email address" });
export type Email = z.infer<typeof Email>;

/**
 * An email address in a response: stated in the OpenAPI document (the same
 * `format` and `pattern` as requests) but not checked when parsing, so that
 * an address stored under an older rule never makes an answer unreadable.
 */
export const EmailOut = z.string().meta({ format: "email", pattern: EMAIL_PATTERN.source });
