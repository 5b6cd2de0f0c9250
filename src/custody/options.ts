import { MedRecordsError } from "../core/errors.js";
import type { ClientOptions } from "../core/options.js";

/** Refuses custody options that could only fail later, mid-download. */
export function checkCustodyOptions(options: ClientOptions): void {
  const { custodyLog, custodyActor, redactFileNames } = options;
  if (custodyLog !== undefined && typeof custodyLog?.append !== "function") {
    throw new MedRecordsError(
      "`custodyLog` must be a custody log (fileCustodyLog(path), postgresCustodyLog({ pool }), or an object with append() and entries()).",
    );
  }
  if (
    custodyActor !== undefined &&
    (typeof custodyActor !== "string" || custodyActor.trim() === "")
  ) {
    throw new MedRecordsError(
      "`custodyActor` must be a non-empty string naming who handles the files.",
    );
  }
  if (redactFileNames !== undefined && typeof redactFileNames !== "boolean") {
    throw new MedRecordsError("`redactFileNames` must be true or false.");
  }
}
