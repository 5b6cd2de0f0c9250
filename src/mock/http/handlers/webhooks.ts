import type { ModelContext } from "../../model/state.js";
import {
  createWebhook,
  deleteWebhook,
  getWebhook,
  listDeliveries,
  listWebhooks,
  redeliver,
  testWebhook,
  updateWebhook,
} from "../../model/webhooks.js";
import type { Handlers } from "../bind.js";
import { pageOf } from "./shared.js";

export function webhookHandlers(ctx: ModelContext) {
  return {
    createWebhook: ({ body, apiKey }) => createWebhook(ctx, body, apiKey.id),
    listWebhooks: () => listWebhooks(ctx),
    getWebhook: ({ params }) => getWebhook(ctx, params.id),
    updateWebhook: ({ params, body }) => updateWebhook(ctx, params.id, body),
    deleteWebhook: ({ params }) => {
      deleteWebhook(ctx, params.id);
      return undefined;
    },
    testWebhook: ({ params }) => testWebhook(ctx, params.id),
    listWebhookDeliveries: ({ params, query }) => listDeliveries(ctx, params.id, pageOf(query)),
    redeliverWebhookDelivery: ({ params }) => redeliver(ctx, params.id, params.delivery_id),
  } satisfies Partial<Handlers>;
}
