/**
 * A fresh state of the reference server: every model module's slice empty,
 * the facility directory seeded. Apart from state.ts and retrieval-state.ts,
 * which the model modules import, so that neither imports a model module
 * back at run time.
 */
import { seedFacilities } from "./facilities.js";
import type { RetrievalState } from "./retrieval-state.js";
import type { MockState } from "./state.js";

export function createState(): MockState {
  return {
    sequence: 0,
    caseNumber: 0,
    cases: new Map(),
    documents: new Map(),
    uploads: new Map(),
    uploadTokens: new Map(),
    downloads: new Map(),
    webhooks: new Map(),
    deliveries: new Map(),
    events: new Map(),
    eventOrder: [],
    retrieval: createRetrievalState(),
  };
}

/** An empty retrieval family, with the facility directory seeded. */
export function createRetrievalState(): RetrievalState {
  const state: RetrievalState = {
    requests: new Map(),
    facilities: new Map(),
    requestors: new Map(),
    counters: new Map(),
    lastPublicUpdateMs: Number.NEGATIVE_INFINITY,
  };
  seedFacilities(state);
  return state;
}
