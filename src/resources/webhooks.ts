import * as webhooks from "../contract/webhooks.js";
import type { APIPromise } from "../core/api-promise.js";
import type { RequestOptions } from "../core/options.js";
import { type PagePromise, paginate } from "../core/pagination.js";
import { APIResource } from "../core/resource.js";
import type {
  Webhook,
  WebhookCreate,
  WebhookCreateResponse,
  WebhookDelivery,
  WebhookDeliveryListParams,
  WebhookTestResult,
  WebhookUpdate,
} from "../schemas/webhooks.js";

/**
 * Outbound signed notifications about retrieval requests. Values over a
 * length limit are refused before sending with an `InvalidRequestError`, other
 * bad values with a `ValidationError`, as the service would.
 */
export class Webhooks extends APIResource {
  /**
   * Creates a webhook (at most `MAX_WEBHOOKS` per organization). The response holds the
   * `secret` that signs every delivery: store it now, it cannot be read again.
   */
  create(
    body: WebhookCreate,
    options?: RequestOptions,
  ): APIPromise<WebhookCreateResponse, "createWebhook"> {
    return this.core.call(webhooks.create, { body }, options);
  }

  /** Every webhook of the organization, newest first, in one array (at most `MAX_WEBHOOKS`). */
  list(options?: RequestOptions): APIPromise<Webhook[], "listWebhooks"> {
    return this.core.call(webhooks.list, {}, options);
  }

  /** One webhook by id, with its delivery health; a `NotFoundError` when there is none. */
  retrieve(webhookId: string, options?: RequestOptions): APIPromise<Webhook, "getWebhook"> {
    return this.core.call(webhooks.retrieve, { params: { id: webhookId } }, options);
  }

  /**
   * Changes only the supplied fields (at least one). `is_enabled: true`
   * re-enables a disabled webhook and resets its failure count.
   */
  update(
    webhookId: string,
    body: WebhookUpdate,
    options?: RequestOptions,
  ): APIPromise<Webhook, "updateWebhook"> {
    return this.core.call(webhooks.update, { params: { id: webhookId }, body }, options);
  }

  /** Deletes the webhook; to rotate a compromised secret, delete and create again. */
  delete(webhookId: string, options?: RequestOptions): APIPromise<void, "deleteWebhook"> {
    return this.core.call(webhooks.delete, { params: { id: webhookId } }, options);
  }

  /**
   * Sends one `webhook.test` delivery now and reports how it went (a failed
   * delivery is a result, not an error). At most one per webhook every 10
   * seconds; sooner calls fail with a `RateLimitError`. Not repeated after a
   * timeout or a 5xx, which could send a second test.
   */
  test(webhookId: string, options?: RequestOptions): APIPromise<WebhookTestResult, "testWebhook"> {
    return this.core.call(webhooks.test, { params: { id: webhookId } }, options);
  }

  /** Delivery attempts of the webhook, newest first: await for a page or `for await` over every one. */
  listDeliveries(
    webhookId: string,
    query: WebhookDeliveryListParams = {},
    options?: RequestOptions,
  ): PagePromise<WebhookDelivery, "listWebhookDeliveries"> {
    return paginate(
      this.core,
      webhooks.listDeliveries,
      { params: { id: webhookId }, query },
      options,
    );
  }

  /**
   * Sends the event of a past delivery once more (same body and id, fresh
   * signature) and returns the new delivery record. Not repeated after a
   * timeout or a 5xx, which could deliver it twice.
   */
  redeliver(
    webhookId: string,
    deliveryId: string,
    options?: RequestOptions,
  ): APIPromise<WebhookDelivery, "redeliverWebhookDelivery"> {
    return this.core.call(
      webhooks.redeliver,
      { params: { id: webhookId, delivery_id: deliveryId } },
      options,
    );
  }
}
