/** The lease contract on the in-process stores: memoryCheckpoint and fileCheckpoint. */
import { describe } from "vitest";
import { memoryCheckpoint } from "../../src/index.js";
import { checkpointLeaseContract } from "../stores/checkpoint-lease-contract.js";

describe("memoryCheckpoint leases", () => {
  checkpointLeaseContract(() => {
    let clock = Date.parse("2026-03-01T10:00:00Z");
    let shared: ReturnType<typeof memoryCheckpoint> | undefined;
    return {
      marginMs: 1,
      // One store in one process: every "instance" is handed the same one.
      async stores(count, leaseSeconds) {
        shared = memoryCheckpoint(null, { leaseSeconds, now: () => clock });
        return Array.from({ length: count }, () => shared!);
      },
      async elapse(ms) {
        clock += ms;
      },
    };
  });
});
