/**
 * Leased, fenced checkpoints (docs/spec-decisions.md, "Catch-up poller"):
 * several instances share one checkpoint, one of them (the holder of the
 * lease) polls, and a save by an instance that lost the lease is refused.
 *
 * The fence is a number that grows with every new holder. A save passes the
 * fence its poller acquired with; the store refuses it once another owner has
 * taken the lease (a larger fence), once the lease lapsed, or when it would
 * move the checkpoint to an earlier `created_at`. So a poller that stalled
 * past its lease (a long GC pause, a frozen VM) and wakes up can never write
 * over the position of the instance that took over.
 */

import type { Checkpoint, CheckpointStore } from "./checkpoint-store.js";
import { MedRecordsError } from "./errors.js";

/** How long a checkpoint lease lasts without renewal, in seconds: also the longest takeover after the holder dies. */
export const DEFAULT_CHECKPOINT_LEASE_SECONDS = 30;

/** A checkpoint store several instances can share: one holds the lease and polls; its saves are fenced. */
export interface CheckpointLeaseStore extends CheckpointStore {
  /**
   * Takes the lease for `owner` (or renews it when `owner` holds it);
   * resolves the fencing token (a number that grows with every new holder),
   * or null while another owner's lease is live.
   */
  acquire(owner: string): Promise<number | null>;
  /**
   * Saves only while `fence` is the current token and the lease is live, and
   * only forward (never to an earlier `created_at`); otherwise rejects with
   * {@link CheckpointLeaseLostError} and saves nothing. Without `fence` (a
   * save outside a poller, say a migration script), it saves only while no
   * owner holds a live lease, and only forward.
   */
  save(checkpoint: Checkpoint, fence?: number): Promise<void>;
  /** Gives the lease up if `owner` holds it (on stop()). */
  release(owner: string): Promise<void>;
  /**
   * Seconds a lease lasts without renewal.
   * @default DEFAULT_CHECKPOINT_LEASE_SECONDS
   */
  readonly leaseSeconds: number;
}

/** Whether `store` takes leases (a shipped store) rather than being a plain user store. */
export function isCheckpointLeaseStore(store: CheckpointStore): store is CheckpointLeaseStore {
  const candidate = store as Partial<CheckpointLeaseStore>;
  return typeof candidate.acquire === "function" && typeof candidate.release === "function";
}

/** Why a save or renewal was refused. */
export type CheckpointLeaseLostReason = "taken_over" | "expired" | "backwards" | "held_by_another";

/**
 * A checkpoint save (or lease renewal) was refused: another instance holds
 * the lease now, the lease lapsed, or the save would have moved the
 * checkpoint backwards. Nothing was saved. The catch-up poller stops its run
 * before the next event; the instance holding the lease carries on.
 */
export class CheckpointLeaseLostError extends MedRecordsError {
  override name = "CheckpointLeaseLostError";
  /** Why: `taken_over` (another owner took the lease), `expired` (it lapsed unrenewed), `backwards` (an earlier `created_at` than the saved one), `held_by_another` (a save without a fence while an owner holds a live lease). */
  readonly reason: CheckpointLeaseLostReason;

  constructor(store: string, reason: CheckpointLeaseLostReason, detail = "") {
    const why = {
      taken_over: "another instance has taken the lease over",
      expired: "the lease lapsed without renewal",
      backwards: "it would move the checkpoint backwards",
      held_by_another: "another instance holds the lease (a save without a fence)",
    }[reason];
    super(`${store}: the checkpoint save was refused: ${why}${detail ? ` (${detail})` : ""}.`);
    this.reason = reason;
  }
}

/** Checks a `leaseSeconds` option: a finite number above 0. */
export function leaseSecondsOption(value: unknown, where: string): number {
  const seconds = value ?? DEFAULT_CHECKPOINT_LEASE_SECONDS;
  if (typeof seconds !== "number" || !Number.isFinite(seconds) || !(seconds > 0)) {
    throw new TypeError(`${where}: \`leaseSeconds\` must be a finite number of seconds above 0.`);
  }
  return seconds;
}

/** Checks an `owner` argument. */
export function ownerArgument(owner: unknown, where: string): string {
  if (typeof owner !== "string" || owner === "") {
    throw new TypeError(`${where}: the lease owner must be a non-empty string.`);
  }
  return owner;
}

/** Checks a `fence` argument: undefined or a positive integer. */
export function fenceArgument(fence: unknown, where: string): number | undefined {
  if (fence === undefined) return undefined;
  if (typeof fence !== "number" || !Number.isSafeInteger(fence) || fence < 1) {
    throw new TypeError(`${where}: \`fence\` must be the number acquire() resolved.`);
  }
  return fence;
}

/** The lease as memory and file stores keep it. */
export interface LeaseState {
  /** Who holds it; null when nobody does (never taken, or released). */
  owner: string | null;
  /** The fence of the last holder; 0 before the first. */
  fence: number;
  /** When it lapses, epoch ms. */
  expiresAt: number;
}

/** The lease after `owner` acquires at `nowMs`, or null while another owner's lease is live. */
export function acquiredLease(
  state: LeaseState,
  owner: string,
  nowMs: number,
  leaseMs: number,
): LeaseState | null {
  if (state.owner !== null && state.owner !== owner && state.expiresAt > nowMs) return null;
  // The same owner keeps its fence: nobody held the lease in between (a takeover or a release changes the owner).
  const fence = state.owner === owner ? state.fence : state.fence + 1;
  return { owner, fence, expiresAt: nowMs + leaseMs };
}

/** Why a save with `fence` at `nowMs` is refused by `state`, or undefined when it may go ahead. */
export function refusedSave(
  state: LeaseState,
  fence: number | undefined,
  nowMs: number,
): CheckpointLeaseLostReason | undefined {
  const live = state.owner !== null && state.expiresAt > nowMs;
  if (fence === undefined) return live ? "held_by_another" : undefined;
  if (state.fence !== fence) return "taken_over";
  // Released (owner null) or lapsed: either way no longer held.
  return live ? undefined : "expired";
}
