/**
 * `medrecords`: the typed client of the Medical Record Retrieval API v2
 * (`MedRecords`), its errors, the event-log catch-up poller, and the zod
 * schemas of every request and response with their types.
 *
 * @module medrecords
 */
export { MedRecords } from "./client.js";
export type { WithResponse } from "./core/api-promise.js";
export { APIPromise } from "./core/api-promise.js";
export {
  APIError,
  type APIErrorInit,
  AuthenticationError,
  BadRequestError,
  ConflictError,
  ConnectionError,
  CustodyLogError,
  DownloadError,
  InternalServerError,
  InvalidRequestError,
  LimitExceededError,
  MedRecordsError,
  NotFoundError,
  PaginationLoopError,
  PermissionError,
  RateLimitError,
  ResponseValidationError,
  TimeoutError,
  UnsupportedMediaTypeError,
  UploadError,
  ValidationError,
  type ValidationIssue,
} from "./core/errors.js";
export { fileFromPath } from "./core/file-from-path.js";
export { LOG_LEVELS, type LogLevel } from "./core/logging.js";
export type {
  ClientOptions,
  Logger,
  RequestInfo,
  RequestOptions,
  ResponseInfo,
} from "./core/options.js";
export { Page, PagePromise, TO_ARRAY_LIMIT_MAX, type ToArrayOptions } from "./core/pagination.js";
export type { CreateOptions } from "./core/reconcile.js";
export type {
  AttributeValue,
  SpanContextLike,
  SpanLike,
  TracerLike,
  TraceStateLike,
} from "./core/tracing.js";
export type { Uploadable, UploadParams } from "./core/uploads.js";
export type {
  CheckpointOptions,
  CustodyCheckpoint,
  TsaOptions,
} from "./custody/checkpoint.js";
export {
  CUSTODY_GENESIS_HASH,
  CustodyEntry,
  type CustodyRecord,
  canonicalEntry,
} from "./custody/entry.js";
export { type FileCustodyLogOptions, fileCustodyLog } from "./custody/file-log.js";
export type { CustodyLog, WitnessedCustodyLog } from "./custody/log.js";
export { type MemoryCustodyLog, memoryCustodyLog } from "./custody/memory-log.js";
export { type PostgresCustodyLogOptions, postgresCustodyLog } from "./custody/postgres-log.js";
export type { SavedFile, SaveOptions } from "./custody/save.js";
export {
  type CheckpointVerification,
  type CustodyVerification,
  type VerifyCustodyLogOptions,
  verifyCustodyLog,
} from "./custody/verify.js";
export type { Drift, DriftKind } from "./fidelity/drift.js";
export { cassette, type Recorder } from "./fidelity/recorder.js";
export {
  type CatchUpOptions,
  type CatchUpPoller,
  type CatchUpResult,
  type EventLogGap,
  EventLogGapError,
} from "./poller/catch-up.js";
export type {
  CatchUpEvent,
  CatchUpEventHandlers,
  HandledLogType,
  LogEventOfType,
} from "./poller/catch-up-events.js";
export { type FileCheckpointOptions, fileCheckpoint } from "./poller/file-checkpoint.js";
export { type MemoryCheckpointOptions, memoryCheckpoint } from "./poller/memory-checkpoint.js";
export type { Cases, UploadDocumentParams } from "./resources/cases.js";
export type { Documents } from "./resources/documents.js";
export type { Events } from "./resources/events.js";
export type { Facilities } from "./resources/facilities.js";
export type { Requestors } from "./resources/requestors.js";
export {
  CHANGES_FROM_START,
  RetrievalRequestChanges,
  type RetrievalRequestChangesPage,
  type RetrievalRequestChangesParams,
  type RetrievalRequests,
  type RetrievalUploadParams,
} from "./resources/retrieval-requests.js";
export type { Webhooks } from "./resources/webhooks.js";
export * from "./schemas/cases.js";
export {
  DEFAULT_PAGE_LIMIT,
  ErrorBody,
  IsoDate,
  IsoDateTime,
  ListParams,
  MimeType,
  PAGE_LIMIT_MAX,
  PAGE_LIMIT_MIN,
} from "./schemas/common.js";
export * from "./schemas/documents.js";
export { EMAIL_PATTERN, Email } from "./schemas/email.js";
export * from "./schemas/event-list.js";
export * from "./schemas/events.js";
export * from "./schemas/facilities.js";
export * from "./schemas/requestors.js";
export * from "./schemas/retrieval-requests.js";
export * from "./schemas/scopes.js";
export * from "./schemas/uploads.js";
export * from "./schemas/webhooks.js";
export {
  CheckpointLeaseLostError,
  type CheckpointLeaseLostReason,
  type CheckpointLeaseStore,
  DEFAULT_CHECKPOINT_LEASE_SECONDS,
} from "./shared/checkpoint-lease.js";
export type { Checkpoint, CheckpointStore } from "./shared/checkpoint-store.js";
export { StoreUnavailableError } from "./shared/store-error.js";
export { WEBHOOK_TIMESTAMP_TOLERANCE_SECONDS } from "./shared/tolerance.js";
export type {
  PostgresPool,
  PostgresPoolClient,
  PostgresQueryable,
  PostgresQueryResult,
} from "./stores/postgres.js";
export {
  type PostgresCheckpointStoreOptions,
  postgresCheckpointStore,
} from "./stores/postgres-checkpoint.js";
export {
  type RedisCheckpointClient,
  type RedisCheckpointStoreOptions,
  redisCheckpointStore,
} from "./stores/redis-checkpoint.js";
