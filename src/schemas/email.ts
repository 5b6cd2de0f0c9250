import * as z from "zod";

/**
 * The HTML standard's "valid e-mail address" (WHATWG HTML, the `type=email`
 * input): letters, digits and ``.!#$%&'*+/=?^_`{|}~-`` before the `@`, then
 * dot-separated host-name labels of 1 to 63 letters, digits and inner
 * hyphens. The well-known practical reading of RFC 5322: it takes every
 * address people have (`a&b@firm.example`, `x/y=z@firm.example`) and leaves
 * out comments, quoted local parts and address literals. Flag-free, so the
 * OpenAPI document carries it as the `pattern` of every email field
 * (docs/spec-decisions.md, "Email addresses").
 */
export const EMAIL_PATTERN =
  /^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$/;

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
