/**
 * API keys and scopes. Messages never contain a key, not even a prefix of
 * an unknown one: tests print responses and keys must not end up in CI logs.
 */

import { SCOPES, type Scope } from "../../schemas/scopes.js";
import { API_KEY_PREFIX } from "../../shared/api-key.js";
import { MockApiError } from "../runtime/http-error.js";
import { randomBase62 } from "../runtime/ids.js";

export { SCOPES, type Scope };

/** The service's key shape: the prefix, then at least 16 visible ASCII characters. */
const API_KEY_SHAPE = new RegExp(`^${API_KEY_PREFIX}[\\x21-\\x7e]{16,}$`);

/** Whether `value` has the shape of one of the service's keys (what the mock accepts to register). */
export function isApiKeyShaped(value: string): boolean {
  return API_KEY_SHAPE.test(value);
}

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
    return this.register(`${API_KEY_PREFIX}${randomBase62(32)}`, options);
  }

  /**
   * Accepts a key chosen by the caller (`medrecords mock` with
   * MEDRECORDS_API_KEY set), with `scopes`; returns it. The message of a
   * refused key never shows it.
   */
  register(key: string, options: CreateApiKeyOptions = {}): string {
    if (typeof key !== "string" || !isApiKeyShaped(key)) {
      throw new TypeError(
        `apiKeys.register: a key must have the service's shape, ${API_KEY_PREFIX} followed by at least 16 visible ASCII characters.`,
      );
    }
    const scopes = options.scopes ?? SCOPES;
    for (const scope of scopes) {
      if (!(SCOPES as readonly string[]).includes(scope)) {
        throw new TypeError(
          `Unknown scope ${JSON.stringify(scope)}: expected one of ${SCOPES.join(", ")}.`,
        );
      }
    }
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
      throw new MockApiError(
        401,
        "invalid_api_key",
        isApiKeyShaped(key)
          ? "The API key is not recognized by this mock. A mock's keys do not survive a restart unless given in MEDRECORDS_API_KEY when it starts (MEDRECORDS_API_KEY=<key> medrecords mock keeps that key across restarts); otherwise use the key the mock printed when it started."
          : `The API key is not recognized: this service's keys start with ${API_KEY_PREFIX}, and this one does not (a key of another service?). Use a key this mock printed or registered (or start it with MEDRECORDS_API_KEY set to a key of that shape).`,
      );
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
