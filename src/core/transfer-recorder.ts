/**
 * The port through which an upload reports what it sent, so that core never
 * loads what records it: src/custody implements it over the client's custody
 * log, and the resource that starts the upload hands it in (none without a
 * log).
 */

/** The ids a recorded transfer names, where the operation knows them. */
export interface CustodyIds {
  document_id?: string | null;
  retrieval_request_id?: string | null;
  case_id?: string | null;
}

/** An upload's name and type, and the request id of the signing call that gave its address. */
export interface UploadFacts {
  file_name: string;
  file_type: string;
  requestId: string | undefined;
}

/** Sees the bytes of each attempt of one upload, and is told which attempt finished. */
export interface TransferRecorder {
  /** `body` as it will be sent, its bytes seen on the way out (a fresh count for each attempt). */
  body(body: BodyInit): Promise<BodyInit>;
  /** The last attempt's stream finished and the file became `ids`: record it. */
  finish(facts: UploadFacts, ids: CustodyIds, where: string): Promise<void>;
}
