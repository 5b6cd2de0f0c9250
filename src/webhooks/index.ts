/**
 * `medrecords/webhooks`: verify, sign and handle deliveries of the service's
 * webhooks. Runs on Web Crypto alone (under the `node` export condition,
 * Node, Bun and Deno take node:crypto's HMAC instead) and imports neither the
 * HTTP client nor msw, so a receiver pulls in nothing else.
 *
 * @module medrecords/webhooks
 */

// Types of the delivery bodies. Only types come from the zod schemas, so
// verifying a delivery loads and runs no zod; parse with the `WebhookEvent`
// zod schema when a full check of `data` is wanted. A newer service may send
// a type this version does not list: verification still returns it (it is
// signed), so end a `switch (event.type)` with a default branch.
export type {
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
} from "../schemas/events.js";
export {
  DEFAULT_DEDUPE_LEASE_SECONDS,
  DEFAULT_DEDUPE_TTL_SECONDS,
  type DedupeClaim,
  type DedupeStore,
} from "../shared/dedupe-store.js";
export { StoreUnavailableError } from "../shared/store-error.js";
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
export { type MemoryDedupeStoreOptions, memoryDedupeStore } from "./dedupe.js";
export {
  WebhookVerificationError,
  type WebhookVerificationErrorDetails,
  type WebhookVerificationReason,
} from "./errors.js";
export type { EventOfType, HandledEventType } from "./events.js";
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
