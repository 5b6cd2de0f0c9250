/** What chaos.test.ts tells each of its worker processes (chaos-worker.ts), and the keys both read. */

export interface ChaosWorkerConfig {
  role: "receiver" | "poller";
  /** Which of the three; seeds the receiver's failures together with the start count. */
  slot: number;
  /** How many times this slot was started before, so a restart draws other failures. */
  start: number;
  /** Poller: the reference server (the API key comes from MEDRECORDS_API_KEY). */
  baseUrl?: string;
  /** Redis key prefix of this test: dedupe keys and the effect counter hash live under it. */
  redisPrefix: string;
  claimsTable: string;
  effectsTable: string;
  /** Where the pollers' shared checkpoint lives: a PostgreSQL row, or a Redis hash under `redisPrefix`. */
  checkpointStore: "postgres" | "redis";
  checkpointTable: string;
  checkpointName: string;
  /** Lease of an in-progress claim, seconds. */
  dedupeLeaseSeconds: number;
  /** Lease of the poller's checkpoint, seconds. */
  checkpointLeaseSeconds: number;
  pageSize: number;
  pollIntervalMs: number;
  /** Receiver: the replay window; the mock clock runs ahead of real time. */
  toleranceSeconds: number;
  /** Receiver: fraction of deliveries failed, split in three equal parts (see above). */
  failureRate: number;
}

/** The Redis hash of effect counts, one field per event id. */
export const countsKey = (prefix: string) => `${prefix}counts`;

/** The Redis key prefix of the checkpoint, when `checkpointStore` is `"redis"`. */
export const checkpointPrefix = (prefix: string) => `${prefix}checkpoint:`;
