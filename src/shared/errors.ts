/**
 * The base of every error the SDK throws: the client's, the webhook
 * toolkit's, the stores' and the poller's, so it lives below all of them.
 */

/** Base class of every error thrown by `medrecords`. */
export class MedRecordsError extends Error {
  /** The class's name, set on each class so that it survives minification and shows in logs. */
  override name = "MedRecordsError";
}
