import { webhooks } from "../../contract/index.js";
import { bind } from "../bind.js";
import type { ModelContext } from "../model/state.js";
import {
  createWebhook,
  deleteWebhook,
  getWebhook,
  listDeliveries,
  listWebhooks,
  redeliver,
  testWebhook,
  updateWebhook,
} from "../model/webhooks.js";
import { type ApiRoute, pageOf } from "./shared.js";

export function webhookRoutes(ctx: ModelContext): ApiRoute[] {
  return [
    bind(ctx, webhooks.create, ({ body, apiKey }) => createWebhook(ctx, body, apiKey.id)),
    bind(ctx, webhooks.list, () => listWebhooks(ctx)),
    bind(ctx, webhooks.retrieve, ({ params }) => getWebhook(ctx, params.id)),
    bind(ctx, webhooks.update, ({ params, body }) => updateWebhook(ctx, params.id, body)),
    bind(ctx, webhooks.delete, ({ params }) => {
      deleteWebhook(ctx, params.id);
      return undefined;
    }),
    bind(ctx, webhooks.test, ({ params }) => testWebhook(ctx, params.id)),
    bind(ctx, webhooks.listDeliveries, ({ params, query }) =>
      listDeliveries(ctx, params.id, pageOf(query)),
    ),
    bind(ctx, webhooks.redeliver, ({ params }) => redeliver(ctx, params.id, params.delivery_id)),
  ];
}
