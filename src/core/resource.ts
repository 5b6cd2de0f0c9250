import type { Core } from "./request.js";

/** Base of every resource: one shared core, so requests, retries and errors live in one place. */
export abstract class APIResource {
  /** @internal The client's shared machinery: not part of the public API. */
  protected readonly core: Core;
  /** @internal Resources are made by `new MedRecords()`, over the client's internals. */
  constructor(core: Core) {
    this.core = core;
  }
}
