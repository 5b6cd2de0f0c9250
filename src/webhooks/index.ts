/**
 * `medrecords/webhooks`: verify, sign and handle deliveries of the service's
 * webhooks. Runs on Web Crypto alone (under the `node` condition, the
 * package's `#hmac` import takes node:crypto's HMAC instead: see hmac.ts and
 * hmac-node.ts) and imports neither the HTTP client nor msw, so a receiver
 * pulls in nothing else.
 *
 * @module medrecords/webhooks
 */

export type {
  PostgresPool,
  PostgresPoolClient,
  PostgresQueryable,
  PostgresQueryResult,
} from "../stores/postgres.js";
export {
  type ClaimResult,
  type PostgresDedupeStore,
  type PostgresDedupeStoreOptions,
  postgresDedupeStore,
} from "../stores/postgres-dedupe.js";
export {
  type RedisDedupeClient,
  type RedisDedupeStoreOptions,
  redisDedupeStore,
} from "../stores/redis-dedupe.js";
export { type DedupeStore, type MemoryDedupeStoreOptions, memoryDedupeStore } from "./dedupe.js";
export {
  WebhookVerificationError,
  type WebhookVerificationErrorDetails,
  type WebhookVerificationReason,
} from "./errors.js";
export type {
  EventOfType,
  HandledEventType,
  RetrievalEventData,
  RetrievalRequestActionRequiredData,
  RetrievalRequestActionRequiredEvent,
  RetrievalRequestDocumentsAvailableData,
  RetrievalRequestDocumentsAvailableEvent,
  RetrievalRequestStatusChangedData,
  RetrievalRequestStatusChangedEvent,
  WebhookEvent,
  WebhookEventType,
  WebhookTestData,
  WebhookTestEvent,
} from "./events.js";
export {
  createWebhookHandler,
  type WebhookErrorContext,
  type WebhookEventHandlers,
  type WebhookFailureStage,
  type WebhookHandlerContext,
  type WebhookHandlerOptions,
} from "./handler.js";
export { readHeader, WEBHOOK_HEADERS, type WebhookHeaders } from "./headers.js";
export { type NodeListenerOptions, toNodeListener } from "./node.js";
export { isNewerRetrievalRequest } from "./ordering.js";
export type { RawWebhookPayload } from "./raw-body.js";
export { type SignWebhookOptions, signWebhook } from "./sign.js";
export { type VerifyWebhookOptions, verifyWebhook } from "./verify.js";
