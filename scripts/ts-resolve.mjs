// `node --import ./scripts/ts-resolve.mjs script.ts`: lets a script run on
// Node's type stripping import the sources, whose relative imports name the
// `.js` that the build writes (`./cases.js` for src/schemas/cases.ts).
import { registerHooks } from "node:module";

registerHooks({
  resolve(specifier, context, next) {
    try {
      return next(specifier, context);
    } catch (error) {
      const relative = specifier.startsWith("./") || specifier.startsWith("../");
      if (error?.code !== "ERR_MODULE_NOT_FOUND" || !relative || !specifier.endsWith(".js")) {
        throw error;
      }
      return next(`${specifier.slice(0, -3)}.ts`, context);
    }
  },
});
