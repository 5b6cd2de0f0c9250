/**
 * Fault injection for the reference server (`mock.faults`, see
 * docs/reference-server.md): one configuration (fault-options.ts) shared by
 * the faults on requests (api-faults.ts) and on webhook deliveries
 * (delivery-faults.ts).
 *
 * Every random choice comes from a PRNG seeded by `seed` (reported by
 * `current()`), in two independent streams, one for requests and one for
 * deliveries, so a failing run replays exactly when the same requests and
 * events happen in the same order. Delays are real time (the mock clock is
 * manual and would never let a delayed answer out).
 */
import { seededRandom } from "../../internal/seeded-random.js";
import { type ApiFaults, createApiFaults } from "./api-faults.js";
import { createDeliveryFaults, type DeliveryFaults } from "./delivery-faults.js";
import {
  faultConfig,
  type MockFaultConfig,
  type MockFaultOptions,
  parseFaultOptions,
} from "./fault-options.js";

// What the HTTP transport (and its tests) need of dropped connections, from the faults' entry point.
export { partialOfDropped, setClientSignal } from "./api-faults.js";

/** `mock.faults`: fault injection on the API origin and in webhook deliveries. */
export interface MockFaults {
  /**
   * Replaces the whole fault configuration (left-out options take their
   * defaults) and restarts the PRNG; returns the new `current()`. Throws a
   * TypeError on an unknown option or a value out of range. Deliveries held
   * by a previous `reorder` are sent first.
   */
  set(options: MockFaultOptions): MockFaultConfig;
  /** Back to no faults (and a new random seed); held deliveries are sent. */
  clear(): void;
  /** The active configuration; `rateLimitBurst` is what is left of the burst. */
  current(): MockFaultConfig;
}

/** The faults of one mock: the public `faults`, and what the service and the delivery engine ask of them. */
export interface FaultController extends ApiFaults {
  /** The public `mock.faults`. */
  readonly faults: MockFaults;
  readonly delivery: DeliveryFaults;
}

export function createFaultController(): FaultController {
  let config = faultConfig({}, randomSeed());
  let apiRandom = seededRandom(streamSeed(config.seed, 1));
  let deliveryRandom = seededRandom(streamSeed(config.seed, 2));

  const api = createApiFaults({ config: () => config, random: () => apiRandom });
  const delivery = createDeliveryFaults({ config: () => config, random: () => deliveryRandom });

  function apply(next: MockFaultConfig): MockFaultConfig {
    delivery.release();
    config = next;
    apiRandom = seededRandom(streamSeed(config.seed, 1));
    deliveryRandom = seededRandom(streamSeed(config.seed, 2));
    return current();
  }

  function current(): MockFaultConfig {
    return structuredClone(config);
  }

  const faults: MockFaults = {
    set(options) {
      const parsed = parseFaultOptions(options);
      return apply(faultConfig(parsed, parsed.seed ?? randomSeed()));
    },
    clear() {
      apply(faultConfig({}, randomSeed()));
    },
    current,
  };

  return { faults, delivery, serve: api.serve };
}

/** Independent streams from one seed, so deliveries do not shift the requests' sequence. */
function streamSeed(seed: number, stream: number): number {
  let h = (seed ^ Math.imul(stream, 0x9e37_79b9)) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85eb_ca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2_ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

function randomSeed(): number {
  return crypto.getRandomValues(new Uint32Array(1))[0]!;
}
