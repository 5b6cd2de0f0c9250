/**
 * `mock.requests`: what the application under test sent to the API origin,
 * for assertions (docs/spec-decisions.md, "Reference server conventions").
 * Only what identifies a call is kept: no body, no header (so no API key), no
 * query string (its values can be PHI, e.g. an `external_id` filter).
 * Requests to the presigned storage origin and to the control API are not
 * API requests and are not recorded.
 */

/** `mock.requests` keeps the most recent this many requests; older ones are dropped. */
export const MOCK_REQUEST_JOURNAL_LIMIT = 10_000;

/** One API request the mock received. */
export interface MockRequestRecord {
  /** Upper case, e.g. `POST`. */
  method: string;
  /** The real path, without the query string, e.g. `/v2/cases/case_abc/documents`. */
  path: string;
  /** The operation's path template, e.g. `/v2/cases/{case_id}/documents`; null when no endpoint matched. */
  pathTemplate: string | null;
  /** The status answered; 0 when the connection was dropped (`mock.faults`). */
  status: number;
  /** The `X-Request-Id` answered. */
  requestId: string;
  /** Arrival, ISO 8601 on the mock clock. */
  at: string;
}

/**
 * The requests received, oldest first: an array (filter it, `expect` it) that
 * holds at most {@link MOCK_REQUEST_JOURNAL_LIMIT} entries.
 */
export interface MockRequestJournal extends ReadonlyArray<Readonly<MockRequestRecord>> {
  /** Forgets every request recorded so far. */
  clear(): void;
}

export interface RequestJournalWriter {
  readonly journal: MockRequestJournal;
  record(entry: MockRequestRecord): void;
}

export function createRequestJournal(limit = MOCK_REQUEST_JOURNAL_LIMIT): RequestJournalWriter {
  const entries: MockRequestRecord[] = [];
  // Not enumerable, so `expect(mock.requests).toEqual([...])` compares the entries only.
  Object.defineProperty(entries, "clear", {
    value: () => {
      entries.length = 0;
    },
    enumerable: false,
  });
  return {
    journal: entries as unknown as MockRequestJournal,
    record(entry) {
      entries.push(Object.freeze(entry));
      if (entries.length > limit) entries.splice(0, entries.length - limit);
    },
  };
}
