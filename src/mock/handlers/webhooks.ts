import { WebhookCreate, WebhookDeliveryListParams, WebhookUpdate } from "../../schemas/webhooks.js";
import { requireScope } from "../model/api-keys.js";
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
import {
  type AdditionalScope,
  type ApiRoute,
  json,
  listJson,
  NoQuery,
  pageOf,
  readBody,
  readNoBody,
  readQuery,
} from "./shared.js";

// Every subscribable type is a retrieval event, so subscribing needs retrievals:read too
// (spec, Authentication: combination rules).
const SUBSCRIBE: AdditionalScope = { scope: "retrievals:read" };
const RESUBSCRIBE: AdditionalScope = { scope: "retrievals:read", when: "when `events` is set" };

export function webhookRoutes(ctx: ModelContext): ApiRoute[] {
  return [
    {
      method: "POST",
      pattern: "/v2/webhooks",
      scope: "webhooks:write",
      additionalScopes: [SUBSCRIBE],
      async handle({ request, url, apiKey }) {
        requireScope(apiKey, SUBSCRIBE.scope);
        readQuery(url, NoQuery);
        const body = await readBody(request, WebhookCreate);
        return json(201, await createWebhook(ctx, body, apiKey.id));
      },
    },
    {
      method: "GET",
      pattern: "/v2/webhooks",
      scope: "webhooks:read",
      handle({ url }) {
        readQuery(url, NoQuery);
        return json(200, listWebhooks(ctx));
      },
    },
    {
      method: "GET",
      pattern: "/v2/webhooks/:id",
      scope: "webhooks:read",
      handle({ url, params }) {
        readQuery(url, NoQuery);
        return json(200, getWebhook(ctx, params.id as string));
      },
    },
    {
      method: "PATCH",
      pattern: "/v2/webhooks/:id",
      scope: "webhooks:write",
      additionalScopes: [RESUBSCRIBE],
      async handle({ request, url, params, apiKey }) {
        readQuery(url, NoQuery);
        const patch = await readBody(request, WebhookUpdate);
        // Changing the subscription subscribes to retrieval events.
        if (patch.events !== undefined) requireScope(apiKey, RESUBSCRIBE.scope);
        return json(200, await updateWebhook(ctx, params.id as string, patch));
      },
    },
    {
      method: "DELETE",
      pattern: "/v2/webhooks/:id",
      scope: "webhooks:write",
      async handle({ request, url, params }) {
        readQuery(url, NoQuery);
        await readNoBody(request);
        deleteWebhook(ctx, params.id as string);
        return new Response(null, { status: 204 });
      },
    },
    {
      method: "POST",
      pattern: "/v2/webhooks/:id/test",
      scope: "webhooks:write",
      async handle({ request, url, params }) {
        readQuery(url, NoQuery);
        await readNoBody(request);
        return json(200, await testWebhook(ctx, params.id as string));
      },
    },
    {
      method: "GET",
      pattern: "/v2/webhooks/:id/deliveries",
      scope: "webhooks:read",
      handle({ url, params }) {
        const query = readQuery(url, WebhookDeliveryListParams);
        const page = listDeliveries(ctx, params.id as string, {
          ...pageOf(query),
        });
        return listJson(ctx, url, page);
      },
    },
    {
      method: "POST",
      pattern: "/v2/webhooks/:id/deliveries/:delivery_id/redeliver",
      scope: "webhooks:write",
      async handle({ request, url, params }) {
        readQuery(url, NoQuery);
        await readNoBody(request);
        return json(200, await redeliver(ctx, params.id as string, params.delivery_id as string));
      },
    },
  ];
}
