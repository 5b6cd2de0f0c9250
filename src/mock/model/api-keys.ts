/**
 * API keys and scopes. Messages never contain a key, not even a prefix of
 * an unknown one: tests print responses and keys must not end up in CI logs.
 */

import { SCOPES, type Scope } from "../../schemas/scopes.js";
import { API_KEY_PREFIX } from "../../shared/api-key.js";
import { MockApiError } from "../http-error.js";
import { randomBase62 } from "./ids.js";

export { SCOPES, type Scope };

export interface ApiKeyRecord {
  /** Stable identity of the key, for fields such as `created_by`. */
  readonly id: string;
  readonly scopes: ReadonlySet<Scope>;
}

/** Options of `mock.apiKeys.create(options)`. */
export interface CreateApiKeyOptions {
  /** Scopes granted to the key. @default every scope of the spec */
  scopes?: readonly Scope[];
}

export class ApiKeyStore {
  readonly #keys = new Map<string, ApiKeyRecord>();

  create(options: CreateApiKeyOptions = {}): string {
    const scopes = options.scopes ?? SCOPES;
    for (const scope of scopes) {
      if (!(SCOPES as readonly string[]).includes(scope)) {
        throw new TypeError(
          `Unknown scope ${JSON.stringify(scope)}: expected one of ${SCOPES.join(", ")}.`,
        );
      }
    }
    const key = `${API_KEY_PREFIX}${randomBase62(32)}`;
    this.#keys.set(key, { id: `key_${randomBase62(16)}`, scopes: new Set(scopes) });
    return key;
  }

  /** Every key and its record, for `mock.snapshot()`; records are immutable, so shared. */
  save(): ReadonlyMap<string, ApiKeyRecord> {
    return new Map(this.#keys);
  }

  /** Back to the keys `save()` returned: later keys stop working, earlier ones work again. */
  restore(saved: ReadonlyMap<string, ApiKeyRecord>): void {
    this.#keys.clear();
    for (const [key, record] of saved) this.#keys.set(key, record);
  }

  /** The key of an `Authorization` header value, or a 401. */
  authenticate(header: string | null): ApiKeyRecord {
    const match = header === null ? null : /^Bearer +(\S+) *$/i.exec(header);
    const key = match?.[1];
    if (key === undefined) {
      throw new MockApiError(
        401,
        "invalid_api_key",
        "Missing or malformed Authorization header: expected 'Authorization: Bearer <API key>'.",
      );
    }
    const record = this.#keys.get(key);
    if (record === undefined) {
      throw new MockApiError(401, "invalid_api_key", "The API key is not recognized.");
    }
    return record;
  }
}

export function requireScope(key: ApiKeyRecord, scope: Scope): void {
  if (!key.scopes.has(scope)) {
    throw new MockApiError(
      403,
      "insufficient_scope",
      `This API key lacks the required scope ${scope}.`,
    );
  }
}
