import type { Core } from "./request.js";

/** Base of every resource: one shared core, so requests, retries and errors live in one place. */
export abstract class APIResource {
  protected readonly core: Core;
  /** @internal Resources are made by `new MedRecords()`, over the client's internals. */
  constructor(core: Core) {
    this.core = core;
  }
}
