/**
 * The "msw2" project's setup: the mock loads msw with Node's `require`
 * (src/mock/service/load-msw.ts), which Vite's alias does not reach, so the same
 * swap (msw 2, installed as `msw2`, for msw) is made for `require` here.
 */
import { registerHooks } from "node:module";

registerHooks({
  resolve(specifier, context, nextResolve) {
    const swapped = /^msw(\/.*)?$/.test(specifier) ? specifier.replace(/^msw/, "msw2") : specifier;
    return nextResolve(swapped, context);
  },
});
