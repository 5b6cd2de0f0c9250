import type { Core } from "./request.js";

/** Base of every resource: one shared core, so requests, retries and errors live in one place. */
export abstract class APIResource {
  protected readonly core: Core;
  constructor(core: Core) {
    this.core = core;
  }
}
