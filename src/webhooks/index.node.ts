/**
 * `medrecords/webhooks` as Node (and Deno, Bun) load it: the `node` condition
 * of the export. The same entry as index.ts, built with HMAC from node:crypto
 * (crypto.node.ts) in place of Web Crypto; see tsup.config.ts.
 */
export * from "./index.js";
