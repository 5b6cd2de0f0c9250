/**
 * The mock's whole in-memory state, in one object so that `reset()` is a
 * single swap. API keys live outside it on purpose: a reset empties the data
 * but the keys a test suite handed out keep working.
 */
import type { Autopilot } from "../autopilot.js";
import type { MockClock } from "../clock.js";
import type { CaseRecord } from "./cases.js";
import type { DeliveryRuntime, StoredDelivery } from "./delivery.js";
import type { StoredDocument } from "./documents.js";
import type { StoredDownload } from "./downloads.js";
import type { OrderedEvent, StoredEvent } from "./event-log.js";
import type { IdSource } from "./id-source.js";
import type { RetrievalState } from "./retrieval-state.js";
import type { StoredUpload } from "./uploads.js";
import type { LookupHost } from "./webhook-urls.js";
import type { StoredWebhook } from "./webhooks.js";

/** A resource together with its place in creation order. */
export interface Stored<T> {
  /** Creation sequence, shared by every resource: drives list order and cursors. */
  readonly seq: number;
  value: T;
}

export interface MockState {
  sequence: number;
  caseNumber: number;
  readonly cases: Map<string, Stored<CaseRecord>>;
  readonly documents: Map<string, StoredDocument>;
  /** Keyed by upload_id. */
  readonly uploads: Map<string, StoredUpload>;
  /** Presigned PUT token to upload_id. */
  readonly uploadTokens: Map<string, string>;
  /** Keyed by presigned download token. */
  readonly downloads: Map<string, StoredDownload>;
  readonly webhooks: Map<string, StoredWebhook>;
  /** Delivery attempts of every webhook, keyed by delivery id. */
  readonly deliveries: Map<string, StoredDelivery>;
  /** The event log, keyed by event id. */
  readonly events: Map<string, StoredEvent>;
  /** The same events by `created_at`, then sequence, oldest first; kept by appendEvent and pruneExpiredEvents. */
  readonly eventOrder: OrderedEvent[];
  /** Retrieval requests, facilities and requestors (retrieval-state.ts). */
  readonly retrieval: RetrievalState;
}

/** What every model function works against. `state` is replaced by `reset()`. */
export interface ModelContext {
  readonly clock: MockClock;
  /** API origin, no trailing slash. */
  readonly baseUrl: string;
  /** Presigned upload/download origin, no trailing slash. */
  readonly storageUrl: string;
  readonly allowPrivateWebhookUrls: boolean;
  /** Resolves a webhook host name for the private-address rule. */
  readonly lookupHost: LookupHost;
  /** Every id the service hands out (id-source.ts). Survives `reset()` and `restore()`: ids never repeat. */
  readonly ids: IdSource;
  /** How deliveries travel, and the attempts in flight. Survives `reset()`. */
  readonly delivery: DeliveryRuntime;
  state: MockState;
  /** Moves each new retrieval request through its life, when the service was created with one. */
  autopilot?: Autopilot | undefined;
}

export function nextSequence(state: MockState): number {
  state.sequence += 1;
  return state.sequence;
}

export function nowMs(ctx: ModelContext): number {
  return ctx.clock.now().getTime();
}

export function nowIso(ctx: ModelContext): string {
  return ctx.clock.now().toISOString();
}

/**
 * The updated_at of a change: the clock's time, but always after the previous
 * value, so clients that compare timestamps see every update even when the
 * mock clock stands still between two writes.
 */
export function nextUpdatedAt(ctx: ModelContext, previous: string): string {
  return new Date(Math.max(nowMs(ctx), Date.parse(previous) + 1)).toISOString();
}

/**
 * A partial update (PATCH) of a stored record: each field the validated
 * `patch` supplies (not undefined; null clears) replaces the record's. An
 * empty PATCH changes nothing, so it does not move updated_at either.
 * Returns a copy of the record after the update.
 */
export function applyPatch<T extends { updated_at: string }>(
  ctx: ModelContext,
  stored: { value: T },
  patch: { readonly [K in keyof T]?: T[K] | undefined },
): T {
  const supplied = Object.entries(patch).filter(([, value]) => value !== undefined);
  if (supplied.length === 0) return { ...stored.value };
  const next: T = { ...stored.value, ...Object.fromEntries(supplied) };
  next.updated_at = nextUpdatedAt(ctx, stored.value.updated_at);
  stored.value = next;
  return { ...next };
}
