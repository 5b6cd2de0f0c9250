/**
 * Faults on webhook deliveries (`mock.faults`): duplicated attempts,
 * attempts held back and sent in shuffled order, and a skewed signing clock.
 */
import type { MockFaultConfig } from "./fault-options.js";

/** What the delivery engine (model/delivery-send.ts) asks of the faults. */
export interface DeliveryFaults {
  /** The signed timestamp (epoch ms) of an attempt sent at `sentAtMs` of the mock clock. */
  signedAtMs(sentAtMs: number): number;
  /** Whether an event delivery attempt is to be POSTed a second time. */
  duplicate(): boolean;
  /**
   * Holds an attempt back when `reorder` is on and returns true (`task` runs
   * later, from `release()`); returns false, keeping nothing, otherwise.
   */
  hold(task: () => void): boolean;
  /** Runs every held attempt now, in shuffled order. */
  release(): void;
}

export interface DeliveryFaultSource {
  /** The active configuration. */
  config(): MockFaultConfig;
  /** The deliveries' PRNG stream. */
  random(): () => number;
}

export function createDeliveryFaults(source: DeliveryFaultSource): DeliveryFaults {
  let held: Array<() => void> = [];
  let holdTimer: ReturnType<typeof setTimeout> | undefined;

  function release(): void {
    if (holdTimer !== undefined) clearTimeout(holdTimer);
    holdTimer = undefined;
    const batch = held;
    held = [];
    const random = source.random();
    for (let i = batch.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [batch[i], batch[j]] = [batch[j]!, batch[i]!];
    }
    for (const task of batch) task();
  }

  return {
    signedAtMs: (sentAtMs) => sentAtMs + source.config().deliveryClockSkewMs,
    duplicate() {
      const { duplicateRate } = source.config();
      return duplicateRate > 0 && source.random()() < duplicateRate;
    },
    hold(task) {
      const { reorder } = source.config();
      if (reorder === false) return false;
      held.push(task);
      if (held.length >= reorder.window) {
        release();
      } else if (holdTimer === undefined) {
        holdTimer = setTimeout(release, reorder.maxHoldMs);
        // A pending hold must not keep a test process alive.
        (holdTimer as { unref?: () => void }).unref?.();
      }
      return true;
    },
    release,
  };
}
