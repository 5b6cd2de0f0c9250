/**
 * crypto.ts for the `node` build of `medrecords/webhooks`
 * (dist/webhooks.node.*, the `node` condition of its export): the same
 * helpers, with HMAC from node:crypto instead of Web Crypto. tsup.config.ts
 * puts this module in place of crypto.ts for that build only, so verify.ts
 * and sign.ts are the same code on every runtime; only the primitive differs.
 */
export {
  concatBytes,
  matchesAnyHex,
  type RawBytes,
  type SignedData,
  timingSafeEqualHex,
  toHex,
  utf8,
} from "./crypto.js";
export { hmacSha256Hex, hmacSha256Matches } from "./hmac-node.js";
