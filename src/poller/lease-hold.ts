/**
 * One catch-up run's hold on a checkpoint lease: the fence it acquired with,
 * renewals during the run, fenced saves. A lost lease ends the run quietly
 * (another instance carries on) by throwing {@link LeaseLost}, which the
 * poller turns into the run's result.
 */

import { CheckpointLeaseLostError, type CheckpointLeaseStore } from "../shared/checkpoint-lease.js";
import type { Checkpoint } from "../shared/checkpoint-store.js";
import type { CatchUpResult } from "./catch-up.js";

/** Thrown through the run when the lease is gone; carries what the run did. */
export class LeaseLost {
  constructor(readonly result: CatchUpResult) {}
}

export class LeaseHold {
  readonly #store: CheckpointLeaseStore;
  readonly #owner: string;
  readonly fence: number;
  /** When the last renewal (or the acquire) was asked for: the lease runs from then at the latest. */
  #renewedAt: number;
  #saved: Checkpoint | null = null;
  #result: () => CatchUpResult = () => ({
    processed: 0,
    duplicates: 0,
    inProgress: 0,
    checkpoint: this.#saved,
    leader: false,
  });

  constructor(store: CheckpointLeaseStore, owner: string, fence: number, acquiredAt: number) {
    this.#store = store;
    this.#owner = owner;
    this.fence = fence;
    this.#renewedAt = acquiredAt;
  }

  /** What the run has done so far, and the checkpoint it started from. */
  track(result: () => CatchUpResult, loaded: Checkpoint | null): void {
    this.#result = result;
    this.#saved = loaded;
  }

  /**
   * Renews once more than a third of the lease has passed (undefined before
   * then: the poller checks per event, and most checks need no promise); a
   * lease gone (another fence, or none) ends the run.
   */
  renewIfDue(): Promise<void> | undefined {
    const asked = Date.now();
    if (asked - this.#renewedAt < (this.#store.leaseSeconds * 1000) / 3) return undefined;
    return this.#renew(asked);
  }

  async #renew(asked: number): Promise<void> {
    const fence = await this.#store.acquire(this.#owner);
    if (fence !== this.fence) this.#lost();
    this.#renewedAt = asked;
  }

  /**
   * Saves with the fence; a refusal because the lease is gone ends the run.
   * A lease that merely lapsed (this process stalled past it) is taken again
   * first: the same fence back means nobody held it meanwhile, so the save
   * is still this holder's to make.
   */
  async save(checkpoint: Checkpoint): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.#store.save(checkpoint, this.fence);
        this.#saved = checkpoint;
        return;
      } catch (error) {
        if (!(error instanceof CheckpointLeaseLostError)) throw error;
        if (error.reason === "expired" && attempt === 1) {
          const asked = Date.now();
          if ((await this.#store.acquire(this.#owner)) !== this.fence) this.#lost();
          this.#renewedAt = asked;
          continue;
        }
        if (error.reason === "taken_over" || error.reason === "expired") this.#lost();
        throw error;
      }
    }
  }

  #lost(): never {
    throw new LeaseLost({ ...this.#result(), checkpoint: this.#saved, leader: false });
  }
}
