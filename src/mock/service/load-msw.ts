/**
 * msw, loaded when `mock.handlers` is first read and not before: the rest of
 * `medrecords/mock` (`startMockServer`, `createMockService().fetch`, the CLI)
 * runs in a project without msw installed (DESIGN 12.1). The load is
 * synchronous, as `handlers` is a property: Node's `require` (which loads
 * msw 3, an ES module, since Node 22.12, sharing the instance `import` gets).
 */
import type * as Msw from "msw";

// Module-scoped in the CommonJS build; absent in the ES module build.
declare const __filename: string | undefined;

/** The message of the error `mock.handlers` throws when msw cannot be loaded. */
export const MSW_MISSING =
  "medrecords/mock: mock.handlers needs msw (MSW's request handlers), which could not be loaded here: install it with `npm install -D msw`. " +
  "startMockServer, createMockService().fetch and the medrecords CLI work without it. " +
  'In a browser, pass it: `import * as msw from "msw"; createMockService({ msw })`.';

let loaded: typeof Msw | undefined;

export function loadMsw(): typeof Msw {
  if (loaded !== undefined) return loaded;
  try {
    loaded = nodeRequire()("msw") as typeof Msw;
    return loaded;
  } catch (error) {
    throw new Error(MSW_MISSING, { cause: error });
  }
}

function nodeRequire(): (id: string) => unknown {
  const process = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } })
    .process;
  const module = process?.getBuiltinModule?.("node:module") as
    | typeof import("node:module")
    | undefined;
  if (module === undefined) {
    throw new Error(
      'No synchronous module loader in this runtime (Node 22.3 or later has one); in a browser, pass msw: `import * as msw from "msw"; createMockService({ msw })`.',
    );
  }
  return module.createRequire(typeof __filename === "string" ? __filename : import.meta.url);
}
