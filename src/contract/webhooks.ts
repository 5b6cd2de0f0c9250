/** Webhooks: outbound signed notifications about retrieval requests. */
import { ListEnvelope } from "../schemas/common.js";
import {
  MAX_WEBHOOKS,
  WEBHOOK_TEST_INTERVAL_MS,
  Webhook,
  WebhookCreate,
  WebhookCreateResponse,
  WebhookDelivery,
  WebhookDeliveryListParams,
  WebhookList,
  WebhookTestResult,
  WebhookUpdate,
} from "../schemas/webhooks.js";
import { defineOperation, EMPTY_BODY } from "./operation.js";

const webhookBodyErrors =
  "`invalid_request` when a value is over its length limit or the URL is not publicly reachable; `validation_error` for any other problem.";

export const WebhookDeliveryList = ListEnvelope(WebhookDelivery);

export const create = defineOperation({
  operationId: "createWebhook",
  method: "POST",
  path: "/v2/webhooks",
  summary: "Create a webhook",
  tag: "Webhooks",
  description:
    "Every subscribable event is a retrieval event, hence `retrievals:read`. The response holds the `secret`, shown only here.",
  body: WebhookCreate,
  status: 201,
  response: WebhookCreateResponse,
  scope: "webhooks:write",
  // Every subscribable type is a retrieval event, so every webhook needs retrievals:read too.
  scopeRules: [{ scope: "retrievals:read", when: "always" }],
  errors: {
    400: webhookBodyErrors,
    409: `\`limit_exceeded\`: the organization already holds ${MAX_WEBHOOKS} webhooks; \`conflict\`: the name is in use.`,
  },
} as const);

export const list = defineOperation({
  operationId: "listWebhooks",
  method: "GET",
  path: "/v2/webhooks",
  summary: `List every webhook (a bare array, at most ${MAX_WEBHOOKS})`,
  tag: "Webhooks",
  status: 200,
  response: WebhookList,
  scope: "webhooks:read",
} as const);

export const retrieve = defineOperation({
  operationId: "getWebhook",
  method: "GET",
  path: "/v2/webhooks/{id}",
  summary: "Read a webhook",
  tag: "Webhooks",
  status: 200,
  response: Webhook,
  scope: "webhooks:read",
} as const);

export const update = defineOperation({
  operationId: "updateWebhook",
  method: "PATCH",
  path: "/v2/webhooks/{id}",
  summary: "Update a webhook",
  tag: "Webhooks",
  description:
    "At least one property. `is_enabled: true` on a disabled webhook resets `consecutive_failures` and clears `auto_disabled_at`; on an enabled one it changes neither.",
  body: WebhookUpdate,
  status: 200,
  response: Webhook,
  scope: "webhooks:write",
  scopeWhen: { "retrievals:read": "when `events` is set" },
  // Changing the subscription subscribes to retrieval events.
  scopeRules: [
    {
      scope: "retrievals:read",
      when: "body-has",
      property: "events",
      checked: "after-validation",
    },
  ],
  errors: { 400: webhookBodyErrors, 409: "`conflict`: the name is in use." },
} as const);

const deleteWebhook = defineOperation({
  operationId: "deleteWebhook",
  method: "DELETE",
  path: "/v2/webhooks/{id}",
  summary: "Delete a webhook",
  tag: "Webhooks",
  description: "To rotate a compromised secret, delete the webhook and create it again.",
  body: EMPTY_BODY,
  status: 204,
  scope: "webhooks:write",
} as const);

// `delete` is a reserved word: exported under that name, declared under another.
export { deleteWebhook as delete };

export const test = defineOperation({
  operationId: "testWebhook",
  method: "POST",
  path: "/v2/webhooks/{id}/test",
  summary: "Send one webhook.test delivery",
  tag: "Webhooks",
  description:
    "One attempt, no retries; answers 200 with the result even when the delivery fails. Works on a disabled webhook and changes none of its delivery-health fields.",
  body: EMPTY_BODY,
  status: 200,
  response: WebhookTestResult,
  scope: "webhooks:write",
  errors: {
    429: `\`rate_limited\`: the webhook was tested less than ${WEBHOOK_TEST_INTERVAL_MS / 1000} seconds ago.`,
  },
} as const);

export const listDeliveries = defineOperation({
  operationId: "listWebhookDeliveries",
  method: "GET",
  path: "/v2/webhooks/{id}/deliveries",
  summary: "List the delivery attempts of a webhook, newest first",
  tag: "Webhooks",
  query: WebhookDeliveryListParams,
  status: 200,
  response: WebhookDeliveryList,
  list: true,
  scope: "webhooks:read",
} as const);

export const redeliver = defineOperation({
  operationId: "redeliverWebhookDelivery",
  method: "POST",
  path: "/v2/webhooks/{id}/deliveries/{delivery_id}/redeliver",
  summary: "Send the event of a past delivery again",
  tag: "Webhooks",
  description: "Same body and id, fresh timestamp and signature; one attempt, no retries.",
  body: EMPTY_BODY,
  status: 200,
  response: WebhookDelivery,
  scope: "webhooks:write",
  errors: { 409: "`conflict`: the webhook is disabled; enable it first." },
} as const);

/**
 * This module's operations keyed by operationId, in the order the OpenAPI
 * document lists them: `CONTRACT` (./index.ts) is these records in turn.
 */
export const operations = {
  createWebhook: create,
  listWebhooks: list,
  getWebhook: retrieve,
  updateWebhook: update,
  deleteWebhook: deleteWebhook,
  testWebhook: test,
  listWebhookDeliveries: listDeliveries,
  redeliverWebhookDelivery: redeliver,
} as const;
