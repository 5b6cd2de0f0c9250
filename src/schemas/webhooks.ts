import * as z from "zod";
import type * as Wire from "../types/wire.js";
import { IsoDateTime, ListParams, openEnum, overLengthAsInvalidRequest } from "./common.js";
import { SUBSCRIBABLE_EVENT_TYPES, TestEventId } from "./events.js";
import { secret } from "./sensitive.js";
import { HTTP_URL_PATTERN, hasUserInfo, uriProblem, WEBHOOK_HOST_RULE } from "./uri.js";

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
/** Waits before each retry after successive failures (Delivery rule 5). */
export const WEBHOOK_RETRY_DELAYS_MS = [60_000, 300_000, 1_800_000, 7_200_000] as const;
/** Attempts per event: the first and one per retry delay. */
export const WEBHOOK_MAX_ATTEMPTS = WEBHOOK_RETRY_DELAYS_MS.length + 1;
/** Consecutive events that failed every attempt before the service disables a webhook. */
export const WEBHOOK_AUTO_DISABLE_AFTER = 5;
/** At most one test per webhook in this window (spec, Webhooks rule 3). */
export const WEBHOOK_TEST_INTERVAL_MS = 10_000;

const name = z.string().min(1).max(WEBHOOK_NAME_MAX);
const description = z.string().max(WEBHOOK_DESCRIPTION_MAX).nullable();
// An absolute ASCII URI (RFC 3986), http or https, without user info: the
// client and the reference server share this schema (docs/spec-decisions.md,
// Webhook management). fetch refuses an address with credentials, so such a
// webhook could never be delivered. Checked on the value as given: z.url()
// would first strip what WHATWG parsing ignores (surrounding spaces, tabs and
// newlines anywhere) and store the stripped URL. The OpenAPI document states
// the rule as HTTP_URL_PATTERN; test/contract/spec-fidelity.test.ts holds
// the two to agree.
const url = z
  .string()
  .max(WEBHOOK_URL_MAX)
  .superRefine((value, ctx) => {
    const problem = webhookUrlProblem(value);
    if (problem !== undefined) ctx.addIssue({ code: "custom", message: problem });
  })
  .meta({ format: "uri", pattern: HTTP_URL_PATTERN.source });

/** Why `value` is not a webhook URL the service takes, or undefined when it is one. */
function webhookUrlProblem(value: string): string | undefined {
  if (!URL.canParse(value) || !/^https?:$/.test(new URL(value).protocol)) {
    return "Invalid URL: expected an absolute http or https URL";
  }
  return (
    uriProblem(value) ??
    (hasUserInfo(value) ? "Must not contain a user name or password" : undefined) ??
    (HTTP_URL_PATTERN.test(value) ? undefined : WEBHOOK_HOST_RULE)
  );
}

const events = z.array(z.enum(WEBHOOK_EVENT_TYPES)).min(1);
// A webhook's URL as the service answers it: a URI by the same pattern in the
// OpenAPI document, a plain string when parsing (the rule is the service's to
// enforce on input).
const urlOut = z.string().meta({ format: "uri", pattern: HTTP_URL_PATTERN.source });

/** Most recent unsuccessful delivery attempt of a webhook; test events excluded. */
export const WebhookLastFailure = z.strictObject({
  /** When the attempt was made: ISO 8601 date-time. */
  at: IsoDateTime,
  /** Null when no response was received (timeout, connection error). */
  status_code: z.number().int().nullable(),
  /** Why it failed, e.g. a timeout or the status the endpoint answered. */
  error: z.string().nullable(),
  /** The `type` of the event the attempt carried. */
  event_type: z.string(),
});
export interface WebhookLastFailure extends Wire.WebhookLastFailure {}

/** A webhook as read or listed: every field is always present. */
export const Webhook = z.strictObject({
  /** Opaque identifier. */
  id: z.string(),
  /** Unique within the organization. */
  name: z.string(),
  /** Where deliveries are POSTed: a public http or https address. */
  url: urlOut,
  /** The subscribed types, from {@link WEBHOOK_EVENT_TYPES}. */
  events: z.array(openEnum(WEBHOOK_EVENT_TYPES)),
  /** Free text; null when not given. */
  description: z.string().nullable(),
  /** False after an update disabled it, or after the service did (`auto_disabled_at`). */
  is_enabled: z.boolean(),
  /** Consecutive events that failed after all delivery attempts. */
  consecutive_failures: z.number().int().nonnegative(),
  /** When an event last failed all its attempts; null if none has. */
  last_failure_at: IsoDateTime.nullable(),
  /** When a delivery last succeeded; null if none has. */
  last_success_at: IsoDateTime.nullable(),
  /** Set when the service disabled the webhook; cleared when it is enabled again. */
  auto_disabled_at: IsoDateTime.nullable(),
  /** The most recent failed attempt, test deliveries excluded; null if none. */
  last_failure: WebhookLastFailure.nullable(),
  /** The secret's last 4 characters after three dots, e.g. `...x7Qa`. */
  secret_hint: z.string().regex(/^\.{3}.{4}$/, "Expected three dots and 4 characters"),
  /** The user or API key that created it. */
  created_by: z.string(),
  /** ISO 8601 date-time. */
  created_at: IsoDateTime,
  /** ISO 8601 date-time; changes with every update. */
  updated_at: IsoDateTime,
});
export interface Webhook extends Wire.Webhook {}

/** Response of GET /v2/webhooks: a bare array, at most {@link MAX_WEBHOOKS} (docs/spec-decisions.md, "Lists"). */
export const WebhookList = z.array(Webhook).max(MAX_WEBHOOKS);
export type WebhookList = Webhook[];

/**
 * Request body of webhook creation. Over-length values are 400
 * invalid_request, every other problem 400 validation_error.
 */
export const WebhookCreate = overLengthAsInvalidRequest(
  z.strictObject({
    /** 1 to {@link WEBHOOK_NAME_MAX} characters, unique within the organization (409 conflict otherwise). */
    name,
    /**
     * A public http or https address: an absolute ASCII URI (RFC 3986, so spaces and non-ASCII
     * characters percent-encoded, an international host in its `xn--` form) without credentials, up
     * to {@link WEBHOOK_URL_MAX} characters.
     */
    url,
    /** At least one; duplicates are stored once. */
    events,
    /** Up to {@link WEBHOOK_DESCRIPTION_MAX} characters. */
    description: description.optional(),
  }),
);
export interface WebhookCreate extends Wire.WebhookCreate {}

/** Response of creation: the only place the secret is ever shown. */
export const WebhookCreateResponse = z.strictObject({
  /** Opaque identifier. */
  id: z.string(),
  /** As given. */
  name: z.string(),
  /** As given. */
  url: urlOut,
  /** As given; null when not given. */
  description: z.string().nullable(),
  /** The subscribed types, each once. */
  events: z.array(openEnum(WEBHOOK_EVENT_TYPES)),
  /** `whsec_...`: the HMAC key of every delivery; store it now, it cannot be read again. */
  secret: secret(z.string().regex(/^whsec_\S+$/, "Expected whsec_<secret>")),
  /** True: a new webhook is enabled. */
  is_enabled: z.boolean(),
  /** Always null on creation. */
  auto_disabled_at: z.null(),
  /** Always null on creation. */
  last_failure: z.null(),
  /** ISO 8601 date-time. */
  created_at: IsoDateTime,
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
      /** 1 to {@link WEBHOOK_NAME_MAX} characters, unique within the organization. */
      name: name.optional(),
      /** As in {@link WebhookCreate}: an absolute ASCII http or https URI without credentials. */
      url: url.optional(),
      /** Replaces the subscribed types; at least one. */
      events: events.optional(),
      /** Up to {@link WEBHOOK_DESCRIPTION_MAX} characters; null clears it. */
      description: description.optional(),
      /**
       * False stops deliveries; true resumes them, resetting the failure count when it was
       * disabled.
       */
      is_enabled: z.boolean().optional(),
    })
    .refine(
      (body) => Object.values(body).some((value) => value !== undefined),
      "At least one property is required",
    ),
);
export interface WebhookUpdate extends Wire.WebhookUpdate {}

/** Result of the test operation: HTTP 200 even when the delivery failed. */
export const WebhookTestResult = z.strictObject({
  /** True when the endpoint answered 2xx within {@link WEBHOOK_DELIVERY_TIMEOUT_MS} ms. */
  success: z.boolean(),
  /** The endpoint's status; null when no response was received. */
  status_code: z.number().int().nullable(),
  /** Milliseconds until the answer, or until the attempt gave up. */
  duration_ms: z.number().int().nonnegative(),
  /** Why it failed; null on success. The endpoint's body is never returned. */
  error: z.string().nullable(),
  /** `evt_test_<uuid>`. */
  event_id: TestEventId,
  /** ISO 8601 date-time. */
  sent_at: IsoDateTime,
});
export interface WebhookTestResult extends Wire.WebhookTestResult {}

/** One delivery attempt to one webhook (the spec leaves the record's fields open). */
export const WebhookDelivery = z.strictObject({
  /** Opaque identifier: what `redeliver` takes. */
  id: z.string(),
  /** The webhook it was sent to. */
  webhook_id: z.string(),
  /** The body id: equal on every attempt and redelivery of one event. */
  event_id: z.string(),
  /** The `type` of the event. */
  event_type: z.string(),
  /** 1 to 5 within an event's attempts; 1 for a test or a redelivery. */
  attempt: z.number().int().positive(),
  /** Null when no response was received. */
  status_code: z.number().int().nullable(),
  /** Why it failed, e.g. a timeout or a redirect; null on success. */
  error: z.string().nullable(),
  /** True when the endpoint answered 2xx within {@link WEBHOOK_DELIVERY_TIMEOUT_MS} ms. */
  success: z.boolean(),
  /** Milliseconds until the answer, or until the attempt gave up. */
  duration_ms: z.number().int().nonnegative(),
  /** When the attempt was sent (its timestamp header). */
  created_at: IsoDateTime,
  /** When the next attempt of this event is due, when this one failed and one is left. */
  next_attempt_at: IsoDateTime.nullable(),
  /** Sent by the test operation; never retried, and not counted in the webhook's health. */
  is_test: z.boolean(),
  /** Sent by `redeliver`. */
  is_redelivery: z.boolean(),
});
export interface WebhookDelivery extends Wire.WebhookDelivery {}

/** Query of GET /v2/webhooks/{id}/deliveries. */
export const WebhookDeliveryListParams = ListParams;
export type WebhookDeliveryListParams = ListParams;
