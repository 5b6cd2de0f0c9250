/** Helpers of the webhook tests: a real receiver on 127.0.0.1 and a few shortcuts. */
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { expect } from "vitest";
import type { Webhook, WebhookCreateResponse } from "../../src/schemas/webhooks.js";
import type { Api } from "./helpers.js";

export interface ReceivedDelivery {
  headers: IncomingHttpHeaders;
  body: string;
}

/** How the receiver answers: a status (with a Location for 3xx) or never ("hang"). */
export type ReceiverAnswer = number | "hang";

export interface Receiver {
  readonly url: string;
  readonly received: ReceivedDelivery[];
  /** Sets the answer to every following request. */
  answer(with_: ReceiverAnswer): void;
  close(): Promise<void>;
}

/** A node:http receiver on 127.0.0.1, port 0, recording every request. */
export async function startReceiver(initial: ReceiverAnswer = 200): Promise<Receiver> {
  const received: ReceivedDelivery[] = [];
  let answer = initial;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString("utf8") });
      if (answer === "hang") return;
      const headers: Record<string, string> = { "content-type": "text/plain" };
      if (answer >= 300 && answer < 400) headers.location = "https://elsewhere.example/hook";
      res.writeHead(answer, headers).end("receiver body that must never be reported");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    answer(next) {
      answer = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export const EVENT = "retrieval_request.status_changed";

export const statusData = (n = 1) => ({
  retrieval_request_id: `rr_${n}`,
  case_id: null,
  public_updated_at: "2026-03-01T10:00:00.000Z",
});

export async function createWebhook(
  api: Api,
  fields: Record<string, unknown> = {},
): Promise<WebhookCreateResponse> {
  const response = await api.post<WebhookCreateResponse>("/v2/webhooks", {
    name: "Records",
    url: "https://hooks.example.test/medrecords",
    events: [EVENT],
    ...fields,
  });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body;
}

export async function readWebhook(api: Api, id: string): Promise<Webhook> {
  const response = await api.get<Webhook>(`/v2/webhooks/${id}`);
  expect(response.status).toBe(200);
  return response.body;
}

/** The fields the test operation must leave alone (spec, Webhooks rule 3). */
export const healthOf = (webhook: Webhook) => ({
  consecutive_failures: webhook.consecutive_failures,
  last_failure_at: webhook.last_failure_at,
  last_success_at: webhook.last_success_at,
  last_failure: webhook.last_failure,
  is_enabled: webhook.is_enabled,
  auto_disabled_at: webhook.auto_disabled_at,
});
