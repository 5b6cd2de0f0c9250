/**
 * What must never reach a log line or an error message, anywhere in the
 * suite: the shapes of the secrets, and protected health information values
 * that tests put in request bodies. The leak collector (leak-collector.ts)
 * checks every test file against these; test/security/leaks.test.ts drives
 * the sentinel values through every error path on purpose.
 */
import { PHI_CANARIES } from "../../src/testing/fictional-clients.js";

/** A sentinel API key in the service's format: `medrecords_sk_live_` + 32 base62. */
export const SENTINEL_API_KEY = "medrecords_sk_live_SeNtInEl0KeY0ZzZ9yY8xX7wW6vV5uU4";

/** A sentinel webhook secret in the format the reference server generates: `whsec_` + 32 base62. */
export const SENTINEL_WEBHOOK_SECRET = "whsec_SeNtInEl0SeCrEt0qQ1rR2sS3tT4uU5v";

/** Body field values standing for protected health information. */
export const SENTINEL_PHI = {
  clientName: "Zelda Sentinel-PHI",
  title: "Sentinel-PHI v. Hyrule Mutual",
  dateOfBirth: "1911-11-11",
  dateOfInjury: "1922-02-22",
  email: "zelda.sentinel-phi@example.test",
  phone: "+1 555 0199 7731",
  address: "77 Sentinel-PHI Lane, Kakariko",
  description: "Sentinel-PHI fractured tibia, see ER notes",
  externalId: "MRN-SENTINEL-PHI-4711",
} as const;

/**
 * Values that must never appear in a log line or an error rendering, by kind.
 * Patterns catch every key and secret, whichever test made it: the
 * reference server's keys (`medrecords_sk_live_` + 32 base62) and the
 * fixtures' (30 chars in test/helpers/scripted-fetch.ts), its secrets
 * (`whsec_` + 32 base62) and the fixtures' (`whsec_` + base64). Short fakes
 * such as `whsec_x` stand for no secret and are not matched.
 */
export const SECRET_PATTERNS: ReadonlyArray<{ kind: string; pattern: RegExp }> = [
  { kind: "API key", pattern: /medrecords_sk_live_[0-9A-Za-z]{16,}/g },
  { kind: "webhook secret", pattern: /whsec_[0-9A-Za-z+/]{16,}/g },
  { kind: "Authorization value", pattern: /Bearer\s+[0-9A-Za-z_]{16,}/g },
];

/**
 * Exact values (PHI) that must never appear. Besides the sentinels, the body
 * values the rest of the suite uses most, so every existing test also shows
 * they are never echoed.
 */
export const SECRET_VALUES: ReadonlyArray<{ kind: string; value: string }> = [
  ...Object.entries(SENTINEL_PHI).map(([field, value]) => ({ kind: `PHI (${field})`, value })),
  { kind: "PHI (fixture client_name)", value: "Jane Doe" },
  { kind: "PHI (fixture client_name)", value: "Richard Roe" },
  { kind: "PHI (fixture email)", value: "jane@example.com" },
  { kind: "PHI (fixture email)", value: "roe@example.com" },
  { kind: "PHI (fixture date of birth)", value: "1980-02-29" },
  { kind: "PHI (fixture phone)", value: "+1 555 0100" },
  // The canaries medrecords/testing gives users: this suite holds itself to the same check.
  ...PHI_CANARIES.map(({ kind, value }) => ({ kind: `PHI (${kind})`, value })),
];

/** One pass over a text for every pattern and value: the common case, nothing found, stays cheap. */
const ANY_SECRET = new RegExp(
  [
    ...SECRET_PATTERNS.map((p) => p.pattern.source),
    ...SECRET_VALUES.map((v) => v.value.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")),
  ].join("|"),
);

/** Whether `text` holds any secret (cheap); `findSecrets` says which. */
export function hasSecret(text: string): boolean {
  return ANY_SECRET.test(text);
}

/** Every secret in `text`, each replaced in the excerpt so a report never repeats it. */
export function findSecrets(text: string): { kind: string; excerpt: string }[] {
  if (!hasSecret(text)) return [];
  const found: { kind: string; index: number }[] = [];
  for (const { kind, pattern } of SECRET_PATTERNS) {
    for (const match of text.matchAll(pattern)) found.push({ kind, index: match.index });
  }
  for (const { kind, value } of SECRET_VALUES) {
    const index = text.indexOf(value);
    if (index !== -1) found.push({ kind, index });
  }
  if (found.length === 0) return [];
  const redacted = redactSecrets(text);
  return found.map(({ kind }) => ({ kind, excerpt: excerptOf(redacted, `[${kind}]`) }));
}

/** `text` with every secret replaced by `[<kind>]`. */
export function redactSecrets(text: string): string {
  let out = text;
  for (const { kind, pattern } of SECRET_PATTERNS) out = out.replace(pattern, `[${kind}]`);
  for (const { kind, value } of SECRET_VALUES) out = out.split(value).join(`[${kind}]`);
  return out;
}

function excerptOf(redacted: string, marker: string): string {
  const line = redacted.split("\n").find((l) => l.includes(marker)) ?? redacted;
  return line.length > 300 ? `${line.slice(0, 300)}...` : line;
}
