// The interface lives below custody (src/core/custody-log.ts) because the client's options name
// it; custody implements it, and this module keeps the name where its implementations look.
export type { CustodyLog } from "../core/custody-log.js";
