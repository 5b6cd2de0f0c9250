import * as z from "zod";
import type * as Wire from "../types/wire.js";
import { IsoDateTime, ListParams, openEnum, overLengthAsInvalidRequest } from "./common.js";
import { SUBSCRIBABLE_EVENT_TYPES, TestEventId } from "./events.js";
import { hasUserInfo, uriProblem } from "./uri.js";

/** Event types a webhook can subscribe to (spec, Webhook.events); `webhook.test` is not one. */
export const WEBHOOK_EVENT_TYPES = SUBSCRIBABLE_EVENT_TYPES;

/** Webhooks an organization can hold (spec, Webhooks rule 1). */
export const MAX_WEBHOOKS = 20;
/** Longest webhook `name`; over it the service answers 400 invalid_request. */
export const WEBHOOK_NAME_MAX = 100;
/** Longest webhook `url`; over it the service answers 400 invalid_request. */
export const WEBHOOK_URL_MAX = 2048;
/** Longest webhook `description`; over it the service answers 400 invalid_request. */
export const WEBHOOK_DESCRIPTION_MAX = 500;
/** A delivery attempt succeeds on a 2xx within this bound (spec, Delivery rule 4). */
export const WEBHOOK_DELIVERY_TIMEOUT_MS = 5_000;
/** Waits before attempts 2 to 5 after successive failures: 1 min, 5 min, 30 min, 2 h (Delivery rule 5). */
export const WEBHOOK_RETRY_DELAYS_MS = [60_000, 300_000, 1_800_000, 7_200_000] as const;
/** Attempts per event: the first and one per retry delay. */
export const WEBHOOK_MAX_ATTEMPTS = WEBHOOK_RETRY_DELAYS_MS.length + 1;
/** Consecutive events that failed every attempt before the service disables a webhook. */
export const WEBHOOK_AUTO_DISABLE_AFTER = 5;
/** At most one test per webhook in this window (spec, Webhooks rule 3). */
export const WEBHOOK_TEST_INTERVAL_MS = 10_000;
export { WEBHOOK_TIMESTAMP_TOLERANCE_SECONDS } from "../webhooks/tolerance.js";

const name = z.string().min(1).max(WEBHOOK_NAME_MAX);
const description = z.string().max(WEBHOOK_DESCRIPTION_MAX).nullable();
// An absolute ASCII URI (RFC 3986), http or https, without user info: the
// client and the reference server share this schema (docs/spec-decisions.md,
// Webhook management). fetch refuses an address with credentials, so such a
// webhook could never be delivered.
const url = z
  .url({ protocol: /^https?$/, error: "Invalid URL: expected an absolute http or https URL" })
  .max(WEBHOOK_URL_MAX)
  .superRefine((value, ctx) => {
    // A value WHATWG parsing refuses is reported by z.url() already.
    if (!URL.canParse(value)) return;
    const problem = uriProblem(value);
    if (problem !== undefined) ctx.addIssue({ code: "custom", message: problem });
    else if (hasUserInfo(value)) {
      ctx.addIssue({ code: "custom", message: "Must not contain a user name or password" });
    }
  });

const events = z.array(z.enum(WEBHOOK_EVENT_TYPES)).min(1);
// A webhook's URL as the service answers it: a URI in the OpenAPI document, a
// plain string when parsing (the rule is the service's to enforce on input).
const urlOut = z.string().meta({ format: "uri" });

/** Most recent unsuccessful delivery attempt of a webhook; test events excluded. */
export const WebhookLastFailure = z.strictObject({
  at: IsoDateTime.meta({ description: "When the attempt was made: ISO 8601 date-time." }),
  status_code: z
    .number()
    .int()
    .nullable()
    .meta({ description: "Null when no response was received (timeout, connection error)." }),
  error: z
    .string()
    .nullable()
    .meta({ description: "Why it failed, e.g. a timeout or the status the endpoint answered." }),
  event_type: z.string().meta({ description: "The `type` of the event the attempt carried." }),
});
export interface WebhookLastFailure extends Wire.WebhookLastFailure {}

/** A webhook as read or listed: every field is always present. */
export const Webhook = z.strictObject({
  id: z.string().meta({ description: "Opaque identifier." }),
  name: z.string().meta({ description: "Unique within the organization." }),
  url: urlOut.meta({ description: "Where deliveries are POSTed: a public http or https address." }),
  events: z
    .array(openEnum(WEBHOOK_EVENT_TYPES))
    .meta({ description: "The subscribed types, from `WEBHOOK_EVENT_TYPES`." }),
  description: z.string().nullable().meta({ description: "Free text; null when not given." }),
  is_enabled: z.boolean().meta({
    description:
      "False after an update disabled it, or after the service did (`auto_disabled_at`).",
  }),
  consecutive_failures: z
    .number()
    .int()
    .nonnegative()
    .meta({ description: "Consecutive events that failed after all delivery attempts." }),
  last_failure_at: IsoDateTime.nullable().meta({
    description: "When an event last failed all its attempts; null if none has.",
  }),
  last_success_at: IsoDateTime.nullable().meta({
    description: "When a delivery last succeeded; null if none has.",
  }),
  auto_disabled_at: IsoDateTime.nullable().meta({
    description: "Set when the service disabled the webhook; cleared when it is enabled again.",
  }),
  last_failure: WebhookLastFailure.nullable().meta({
    description: "The most recent failed attempt, test deliveries excluded; null if none.",
  }),
  secret_hint: z
    .string()
    .regex(/^\.{3}.{4}$/, "Expected three dots and 4 characters")
    .meta({ description: "The secret's last 4 characters after three dots, e.g. `...x7Qa`." }),
  created_by: z.string().meta({ description: "The user or API key that created it." }),
  created_at: IsoDateTime.meta({ description: "ISO 8601 date-time." }),
  updated_at: IsoDateTime.meta({ description: "ISO 8601 date-time; changes with every update." }),
});
export interface Webhook extends Wire.Webhook {}

/** Response of GET /v2/webhooks: a bare array, at most 20 (docs/spec-decisions.md, "Lists"). */
export const WebhookList = z.array(Webhook).max(MAX_WEBHOOKS);
export type WebhookList = Webhook[];

/**
 * Request body of webhook creation. Over-length values are 400
 * invalid_request, every other problem 400 validation_error.
 */
export const WebhookCreate = overLengthAsInvalidRequest(
  z.strictObject({
    name: name.meta({
      description: "1 to 100 characters, unique within the organization (409 conflict otherwise).",
    }),
    url: url.meta({
      description:
        "A public http or https address: an absolute ASCII URI (RFC 3986, so spaces and non-ASCII characters percent-encoded, an international host in its `xn--` form) without credentials, up to 2048 characters.",
    }),
    events: events.meta({ description: "At least one; duplicates are stored once." }),
    description: description.optional().meta({ description: "Up to 500 characters." }),
  }),
);
export interface WebhookCreate extends Wire.WebhookCreate {}

/** Response of creation: the only place the secret is ever shown. */
export const WebhookCreateResponse = z.strictObject({
  id: z.string().meta({ description: "Opaque identifier." }),
  name: z.string().meta({ description: "As given." }),
  url: urlOut.meta({ description: "As given." }),
  description: z.string().nullable().meta({ description: "As given; null when not given." }),
  events: z
    .array(openEnum(WEBHOOK_EVENT_TYPES))
    .meta({ description: "The subscribed types, each once." }),
  secret: z
    .string()
    .regex(/^whsec_\S+$/, "Expected whsec_<secret>")
    .meta({
      description:
        "`whsec_...`: the HMAC key of every delivery; store it now, it cannot be read again.",
    }),
  is_enabled: z.boolean().meta({ description: "True: a new webhook is enabled." }),
  auto_disabled_at: z.null().meta({ description: "Always null on creation." }),
  last_failure: z.null().meta({ description: "Always null on creation." }),
  created_at: IsoDateTime.meta({ description: "ISO 8601 date-time." }),
});
export interface WebhookCreateResponse extends Wire.WebhookCreateResponse {}

/**
 * Request body of a partial webhook update: at least one property. Setting
 * `is_enabled: true` on a disabled webhook also resets `consecutive_failures`
 * and clears `auto_disabled_at`; on an enabled one it changes neither.
 */
export const WebhookUpdate = overLengthAsInvalidRequest(
  z
    .strictObject({
      name: name
        .optional()
        .meta({ description: "1 to 100 characters, unique within the organization." }),
      url: url.optional().meta({
        description:
          "As in `WebhookCreate`: an absolute ASCII http or https URI without credentials.",
      }),
      events: events
        .optional()
        .meta({ description: "Replaces the subscribed types; at least one." }),
      description: description
        .optional()
        .meta({ description: "Up to 500 characters; null clears it." }),
      is_enabled: z.boolean().optional().meta({
        description:
          "False stops deliveries; true resumes them, resetting the failure count when it was disabled.",
      }),
    })
    .refine(
      (body) => Object.values(body).some((value) => value !== undefined),
      "At least one property is required",
    ),
);
export interface WebhookUpdate extends Wire.WebhookUpdate {}

/** Result of the test operation: HTTP 200 even when the delivery failed. */
export const WebhookTestResult = z.strictObject({
  success: z
    .boolean()
    .meta({ description: "True when the endpoint answered 2xx within 5 seconds." }),
  status_code: z
    .number()
    .int()
    .nullable()
    .meta({ description: "The endpoint's status; null when no response was received." }),
  duration_ms: z
    .number()
    .int()
    .nonnegative()
    .meta({ description: "Milliseconds until the answer, or until the attempt gave up." }),
  error: z.string().nullable().meta({
    description: "Why it failed; null on success. The endpoint's body is never returned.",
  }),
  event_id: TestEventId.meta({ description: "`evt_test_<uuid>`." }),
  sent_at: IsoDateTime.meta({ description: "ISO 8601 date-time." }),
});
export interface WebhookTestResult extends Wire.WebhookTestResult {}

/** One delivery attempt to one webhook (the spec leaves the record's fields open). */
export const WebhookDelivery = z.strictObject({
  id: z.string().meta({ description: "Opaque identifier: what `redeliver` takes." }),
  webhook_id: z.string().meta({ description: "The webhook it was sent to." }),
  event_id: z
    .string()
    .meta({ description: "The body id: equal on every attempt and redelivery of one event." }),
  event_type: z.string().meta({ description: "The `type` of the event." }),
  attempt: z
    .number()
    .int()
    .positive()
    .meta({ description: "1 to 5 within an event's attempts; 1 for a test or a redelivery." }),
  status_code: z
    .number()
    .int()
    .nullable()
    .meta({ description: "Null when no response was received." }),
  error: z
    .string()
    .nullable()
    .meta({ description: "Why it failed, e.g. a timeout or a redirect; null on success." }),
  success: z
    .boolean()
    .meta({ description: "True when the endpoint answered 2xx within 5 seconds." }),
  duration_ms: z
    .number()
    .int()
    .nonnegative()
    .meta({ description: "Milliseconds until the answer, or until the attempt gave up." }),
  created_at: IsoDateTime.meta({
    description: "When the attempt was sent (its timestamp header).",
  }),
  next_attempt_at: IsoDateTime.nullable().meta({
    description:
      "When the next attempt of this event is due, when this one failed and one is left.",
  }),
  is_test: z.boolean().meta({
    description:
      "Sent by the test operation; never retried, and not counted in the webhook's health.",
  }),
  is_redelivery: z.boolean().meta({ description: "Sent by `redeliver`." }),
});
export interface WebhookDelivery extends Wire.WebhookDelivery {}

/** Query of GET /v2/webhooks/{id}/deliveries. */
export const WebhookDeliveryListParams = ListParams;
export type WebhookDeliveryListParams = ListParams;
