/**
 * Fuzzing of `verifyWebhook`, beside test/webhooks/verify.property.test.ts
 * (which signs a fresh random event per run and applies one body, timestamp
 * or hex-digit change). Here each run starts from a delivery signed once at
 * load (by node:crypto, independently of the code under test) and applies
 * one change (sometimes up to four) to any part of a delivery: body bytes,
 * timestamp, signature, event headers, duplicated headers, the secret, the clock.
 * Any one of them must make verification fail with a
 * `WebhookVerificationError`; with none, the delivery, dressed in ways that
 * do not change its meaning (header case, whitespace, header container,
 * payload type, extra signatures and secrets), must be accepted.
 *
 * A second property feeds arbitrary payloads and headers, bodies nested
 * 100 000 deep and headers with more signature candidates than are read:
 * nothing but a `WebhookVerificationError` may come out, never
 * synchronously, and nothing is accepted unless this test signed it (with
 * at most `MAX_SIGNATURE_CANDIDATES` candidates).
 */
import { createHash } from "node:crypto";
import fc from "fast-check";
import { describe, it } from "vitest";
import { RESERIALIZED_HINT_MAX_DEPTH } from "../../src/webhooks/errors.js";
import { verifyWebhook, WebhookVerificationError } from "../../src/webhooks/index.js";
import { MAX_SIGNATURE_CANDIDATES } from "../../src/webhooks/verify.js";
import {
  documentsAvailable,
  nodeHmac,
  OTHER_SECRET,
  SECRET,
  statusChanged,
  TS,
  webhookTest,
} from "../webhooks/fixtures.js";
import { deeplyNestedJson } from "./arbitraries.js";
import { FULL, fuzzParams } from "./runs.js";

const TOLERANCE = 300;
const ID = "x-webhook-event-id";
const TYPE = "x-webhook-event-type";
const TIMESTAMP = "x-service-timestamp";
const V1 = "x-service-signature-v1";
const LEGACY = "x-service-signature";

const encoder = new TextEncoder();
const utf8 = (text: string) => encoder.encode(text);
/** Keeps a leading BOM: the string form must hold exactly the signed bytes. */
const strictDecoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

// ------------------------------------------------------------------ corpus

/** Never handed to the verifier: what it signs is a forgery. */
const ATTACKER_SECRET = "whsec_attacker-a9f3c1e07b2d";
/** Secrets handed to the verifier beside the right one; none ever signs. */
const DECOY_SECRETS = [OTHER_SECRET, "whsec_decoy", `whsec_${"d".repeat(90)}`];

const SECRETS = [
  SECRET,
  "whsec_ünïcödé-🔑",
  // Over 64 bytes: HMAC hashes the key first, another code path.
  `whsec_${"k".repeat(80)}`,
];

const unicodeEvent = {
  id: "evt_ünïcödé_🔑",
  type: "retrieval_request.action_required",
  created_at: "2026-01-01T00:00:00.000Z",
  data: { note: "Zoë — 東京 \u2028 \u{1F600}", nested: { list: [1, 2.5, -3e-7, null, true] } },
};

const bigEvent = {
  ...statusChanged,
  id: "evt_big",
  data: { ...statusChanged.data, padding: "p".repeat(8_000), items: Array(200).fill("x") },
};

/** Bodies exactly as a service could send them, compact or not. */
const BODIES: string[] = [
  JSON.stringify(statusChanged),
  JSON.stringify(documentsAvailable),
  JSON.stringify(webhookTest),
  JSON.stringify(unicodeEvent),
  JSON.stringify(bigEvent),
  JSON.stringify(statusChanged, null, 2),
  `\uFEFF${JSON.stringify(documentsAvailable)}`,
];

interface Signed {
  body: Uint8Array;
  id: string;
  type: string;
  ts: number;
  secret: string;
  /** `v1=<hex>`. */
  token: string;
  legacy: string;
}

const CORPUS: Signed[] = BODIES.flatMap((text, i) =>
  SECRETS.map((secret, j) => {
    const ts = TS + i * 7919 + j * 104_729;
    const { id, type } = JSON.parse(text.replace(/^\uFEFF/, "")) as { id: string; type: string };
    return {
      body: utf8(text),
      id,
      type,
      ts,
      secret,
      token: `v1=${nodeHmac(secret, `${ts}.${text}`)}`,
      legacy: `v0=${nodeHmac(secret, text)}`,
    };
  }),
);

// ------------------------------------------------------------------ the delivery model

/** A delivery before it is dressed for the call: header names lower case, in order. */
interface Model {
  body: Uint8Array;
  headers: [string, string][];
  secrets: string[];
  nowMs: number;
}

function baseModel(s: Signed): Model {
  return {
    body: s.body,
    headers: [
      ["content-type", "application/json"],
      [ID, s.id],
      [TYPE, s.type],
      [TIMESTAMP, String(s.ts)],
      [V1, s.token],
      [LEGACY, s.legacy],
    ],
    secrets: [s.secret],
    nowMs: s.ts * 1000,
  };
}

const values = (m: Model, name: string) => m.headers.filter(([n]) => n === name).map(([, v]) => v);
const without = (m: Model, name: string): [string, string][] =>
  m.headers.filter(([n]) => n !== name);

// ------------------------------------------------------------------ changes that keep the meaning

interface Keep {
  dropId: boolean;
  dropType: boolean;
  dropLegacy: boolean;
  /** Other tokens in the V1 header beside the valid one: wrong v1 signatures and other schemes. */
  extraTokens: string[];
  separator: string;
  validAt: number;
  /** A second V1 header: the valid token again, or a wrong one. */
  secondV1: string | undefined;
  decoys: string[];
  skewMs: number;
  unrelated: [string, string][];
}

const hex64 = fc.stringMatching(/^[0-9a-f]{64}$/);

const keep: fc.Arbitrary<Keep> = fc.record({
  dropId: fc.boolean(),
  dropType: fc.boolean(),
  dropLegacy: fc.boolean(),
  extraTokens: fc.array(
    fc.oneof(
      hex64.map((h) => `v1=${h}`),
      fc.stringMatching(/^v(0|[2-9]|1[0-9])=[^\s,]{0,70}$/),
    ),
    { maxLength: 3 },
  ),
  separator: fc.constantFrom(",", ", ", " ", " ,\t", ",,"),
  validAt: fc.nat(),
  secondV1: fc.option(
    fc.oneof(
      fc.constant("valid"),
      hex64.map((h) => `v1=${h}`),
    ),
    {
      nil: undefined,
    },
  ),
  decoys: fc.subarray(DECOY_SECRETS),
  skewMs: fc.integer({ min: -TOLERANCE * 1000, max: TOLERANCE * 1000 + 999 }),
  unrelated: fc.array(
    fc.tuple(
      fc.stringMatching(/^[a-z][a-z0-9-]{0,20}$/).filter((n) => !n.startsWith("x-")),
      fc.string({ maxLength: 30 }),
    ),
    { maxLength: 3 },
  ),
});

function applyKeep(m: Model, s: Signed, k: Keep): Model {
  let headers = m.headers;
  if (k.dropId) headers = headers.filter(([n]) => n !== ID);
  if (k.dropType) headers = headers.filter(([n]) => n !== TYPE);
  if (k.dropLegacy) headers = headers.filter(([n]) => n !== LEGACY);
  const tokens = [...k.extraTokens];
  tokens.splice(k.validAt % (tokens.length + 1), 0, s.token);
  headers = headers.map(([n, v]) => (n === V1 ? [n, tokens.join(k.separator)] : [n, v]));
  if (k.secondV1 !== undefined) headers.push([V1, k.secondV1 === "valid" ? s.token : k.secondV1]);
  const secrets = [...k.decoys];
  secrets.splice(k.validAt % (secrets.length + 1), 0, s.secret);
  return {
    body: m.body,
    headers: [...headers, ...k.unrelated],
    secrets,
    nowMs: s.ts * 1000 + k.skewMs,
  };
}

// ------------------------------------------------------------------ changes that must be refused

type BodyEdit =
  | { k: "flip"; i: number; mask: number }
  | { k: "insert"; i: number; bytes: Uint8Array }
  | { k: "delete"; i: number; n: number }
  | { k: "truncate"; keep: number }
  | { k: "append"; bytes: Uint8Array }
  | { k: "invalid-utf8"; i: number; seq: readonly number[]; replace: boolean }
  | { k: "swap"; i: number; j: number }
  | { k: "reencode"; how: "pretty" | "escape" | "reorder" | "crlf" | "bom" | "nfd" | "space" };

type Mutation =
  | { g: "body"; edits: BodyEdit[] }
  | { g: "ts"; how: "shift"; delta: number }
  | { g: "ts"; how: "rewrite"; form: TimestampForm }
  | { g: "ts"; how: "arbitrary"; value: string }
  | { g: "ts"; how: "duplicate"; delta: number }
  | { g: "sig"; how: "digit"; i: number; step: number }
  | { g: "sig"; how: "uppercase" | "remove" }
  | { g: "sig"; how: "length"; delta: number }
  | { g: "sig"; how: "scheme"; prefix: string }
  | { g: "sig"; how: "confuse"; which: Confusion }
  /** Wrong `v1=` values added until there are `extra` more than are read. */
  | { g: "sig"; how: "crowd"; extra: number; separate: boolean; hexes: string[] }
  | { g: "id" | "type"; how: "change"; value: string }
  | { g: "id" | "type"; how: "duplicate" }
  | { g: "secret"; how: SecretChange[] }
  | { g: "now"; beyond: number; future: boolean };

type TimestampForm =
  | "leading-zero"
  | "plus"
  | "minus"
  | "decimal"
  | "exponent"
  | "milliseconds"
  | "inner-space"
  | "hex"
  | "fullwidth"
  | "arabic-indic"
  | "sixteen-digits"
  | "empty"
  | "blank"
  | "remove";

type Confusion = "legacy-v0" | "no-dot" | "swapped" | "other-ts" | "attacker" | "body-only-dot";

type SecretChange =
  | { k: "decoy"; n: number }
  | { k: "char"; i: number; step: number }
  | { k: "append" | "prepend"; c: string }
  | { k: "truncate"; n: number }
  | { k: "newline" | "leading-space" | "no-prefix" | "uppercase" };

const byteArray = (min: number, max: number) =>
  fc.uint8Array({ minLength: min, maxLength: max }) as fc.Arbitrary<Uint8Array>;

const bodyEdit: fc.Arbitrary<BodyEdit> = fc.oneof(
  fc.record({ k: fc.constant("flip"), i: fc.nat(), mask: fc.integer({ min: 1, max: 255 }) }),
  fc.record({ k: fc.constant("insert"), i: fc.nat(), bytes: byteArray(1, 16) }),
  fc.record({ k: fc.constant("delete"), i: fc.nat(), n: fc.integer({ min: 1, max: 64 }) }),
  fc.record({ k: fc.constant("truncate"), keep: fc.nat() }),
  fc.record({ k: fc.constant("append"), bytes: byteArray(1, 16) }),
  fc.record({
    k: fc.constant("invalid-utf8"),
    i: fc.nat(),
    seq: fc.constantFrom(
      [0xff],
      [0xc0, 0x80],
      [0x80],
      [0xed, 0xa0, 0x80],
      [0xf8, 0x88, 0x80, 0x80, 0x80],
      [0xe2, 0x82],
      [0xf4, 0x90, 0x80, 0x80],
    ),
    replace: fc.boolean(),
  }),
  fc.record({ k: fc.constant("swap"), i: fc.nat(), j: fc.nat() }),
  fc.record({
    k: fc.constant("reencode"),
    how: fc.constantFrom("pretty", "escape", "reorder", "crlf", "bom", "nfd", "space"),
  }),
);

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  {
    arbitrary: fc.record({
      g: fc.constant("body"),
      edits: fc.array(bodyEdit, { minLength: 1, maxLength: 3 }),
    }),
    weight: 6,
  },
  {
    arbitrary: fc.record({
      g: fc.constant("ts"),
      how: fc.constant("shift"),
      delta: fc
        .oneof(
          fc.integer({ min: -TOLERANCE, max: TOLERANCE }),
          fc.integer({ min: -1_000_000, max: 1_000_000 }),
        )
        .filter((d) => d !== 0),
    }),
    weight: 2,
  },
  fc.record({
    g: fc.constant("ts"),
    how: fc.constant("rewrite"),
    form: fc.constantFrom<TimestampForm>(
      "leading-zero",
      "plus",
      "minus",
      "decimal",
      "exponent",
      "milliseconds",
      "inner-space",
      "hex",
      "fullwidth",
      "arabic-indic",
      "sixteen-digits",
      "empty",
      "blank",
      "remove",
    ),
  }),
  // Checked against the delivery's own timestamp when applied.
  fc.record({
    g: fc.constant("ts"),
    how: fc.constant("arbitrary"),
    value: fc.string({ unit: "binary", maxLength: 20 }),
  }),
  fc.record({
    g: fc.constant("ts"),
    how: fc.constant("duplicate"),
    delta: fc.integer({ min: -5, max: 5 }),
  }),
  {
    arbitrary: fc.record({
      g: fc.constant("sig"),
      how: fc.constant("digit"),
      i: fc.oneof(fc.constantFrom(0, 63), fc.integer({ min: 0, max: 63 })),
      step: fc.integer({ min: 1, max: 15 }),
    }),
    weight: 2,
  },
  fc.record({ g: fc.constant("sig"), how: fc.constantFrom("uppercase", "remove") }),
  fc.record({
    g: fc.constant("sig"),
    how: fc.constant("length"),
    delta: fc.integer({ min: -64, max: 8 }).filter((d) => d !== 0),
  }),
  fc.record({
    g: fc.constant("sig"),
    how: fc.constant("scheme"),
    prefix: fc.constantFrom(
      "v0=",
      "v2=",
      "V1=",
      "v1:",
      "v1==",
      "v01=",
      "sha256=",
      "",
      "v1 =",
      "v1=\u00a0",
    ),
  }),
  fc.record({
    g: fc.constant("sig"),
    how: fc.constant("crowd"),
    extra: fc.integer({ min: 1, max: 3 }),
    separate: fc.boolean(),
    hexes: fc.array(hex64, {
      minLength: MAX_SIGNATURE_CANDIDATES + 3,
      maxLength: MAX_SIGNATURE_CANDIDATES + 3,
    }),
  }),
  {
    arbitrary: fc.record({
      g: fc.constant("sig"),
      how: fc.constant("confuse"),
      which: fc.constantFrom<Confusion>(
        "legacy-v0",
        "no-dot",
        "swapped",
        "other-ts",
        "attacker",
        "body-only-dot",
      ),
    }),
    weight: 2,
  },
  fc.record({
    g: fc.constantFrom("id", "type"),
    how: fc.constant("change"),
    value: fc.oneof(
      fc.string({ unit: "binary", maxLength: 40 }),
      fc.constantFrom("", " ", "webhook.test", "retrieval_request.status_changed"),
    ),
  }),
  fc.record({ g: fc.constantFrom("id", "type"), how: fc.constant("duplicate") }),
  {
    arbitrary: fc.record({
      g: fc.constant("secret"),
      how: fc.array(
        fc.oneof(
          fc.record({ k: fc.constant("decoy"), n: fc.nat() }),
          fc.record({
            k: fc.constant("char"),
            i: fc.nat(),
            step: fc.integer({ min: 1, max: 0x2ff }),
          }),
          fc.record({
            k: fc.constantFrom("append", "prepend"),
            // Never NUL: HMAC pads a short key with zero bytes, so `secret + "\0"` is the same key.
            c: fc
              .string({ unit: "binary", minLength: 1, maxLength: 3 })
              .filter((c) => !/^\0+$/.test(c)),
          }),
          fc.record({ k: fc.constant("truncate"), n: fc.nat() }),
          fc.record({ k: fc.constantFrom("newline", "leading-space", "no-prefix", "uppercase") }),
        ),
        { minLength: 1, maxLength: 3 },
      ),
    }),
    weight: 2,
  },
  fc.record({
    g: fc.constant("now"),
    beyond: fc.integer({ min: TOLERANCE + 1, max: 10_000_000 }),
    future: fc.boolean(),
  }),
);

/**
 * Mostly one change, so that each must be refused on its own; sometimes
 * several, one per part of the delivery so that two cannot cancel out.
 */
const mutations: fc.Arbitrary<Mutation[]> = fc.oneof(
  { arbitrary: mutation.map((m) => [m]), weight: 3 },
  {
    arbitrary: fc.uniqueArray(mutation, { minLength: 2, maxLength: 4, selector: (m) => m.g }),
    weight: 1,
  },
);

function applyBodyEdit(body: Uint8Array, e: BodyEdit): Uint8Array {
  const at = (i: number, n = body.length) => (n === 0 ? 0 : i % (n + 1));
  switch (e.k) {
    case "flip": {
      const copy = body.slice();
      const i = e.i % copy.length;
      copy[i] = (copy[i] ?? 0) ^ e.mask;
      return copy;
    }
    case "insert": {
      const i = at(e.i);
      return concat(body.subarray(0, i), e.bytes, body.subarray(i));
    }
    case "delete": {
      const i = e.i % body.length;
      return concat(body.subarray(0, i), body.subarray(i + e.n));
    }
    case "truncate":
      return body.subarray(0, e.keep % body.length);
    case "append":
      return concat(body, e.bytes);
    case "invalid-utf8": {
      const i = at(e.i);
      const seq = Uint8Array.from(e.seq);
      return concat(body.subarray(0, i), seq, body.subarray(e.replace ? i + seq.length : i));
    }
    case "swap": {
      const copy = body.slice();
      const i = e.i % copy.length;
      const j = e.j % copy.length;
      [copy[i], copy[j]] = [copy[j] ?? 0, copy[i] ?? 0];
      return copy;
    }
    case "reencode":
      return reencode(body, e.how);
  }
}

/** The same JSON written differently: the same meaning, other bytes. */
function reencode(body: Uint8Array, how: Extract<BodyEdit, { k: "reencode" }>["how"]): Uint8Array {
  const text = safeDecode(body);
  // Already not UTF-8 after an earlier edit: a space more changes it all the same.
  if (text === undefined) return concat(body, utf8(" "));
  const plain = text.replace(/^\uFEFF/, "");
  let value: Record<string, unknown>;
  try {
    value = JSON.parse(plain) as Record<string, unknown>;
  } catch {
    return utf8(`${text} `);
  }
  switch (how) {
    case "pretty":
      return utf8(JSON.stringify(value, null, "\t"));
    case "escape":
      return utf8(
        plain.replace(/[a-z]/, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`),
      );
    case "reorder":
      return utf8(JSON.stringify(Object.fromEntries(Object.entries(value).reverse())));
    case "crlf":
      return utf8(`${text}\r\n`);
    case "bom":
      return utf8(text.startsWith("\uFEFF") ? plain : `\uFEFF${text}`);
    case "nfd":
      return utf8(text.normalize("NFD") === text ? `${text}\n` : text.normalize("NFD"));
    case "space":
      return utf8(` ${text}`);
  }
}

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const p of parts) {
    out.set(p, offset);
    offset += p.length;
  }
  return out;
}

const sameBytes = (a: Uint8Array, b: Uint8Array) =>
  a.length === b.length && a.every((x, i) => x === b[i]);

/** HMAC keys that sign alike: a key over 64 bytes is hashed, a shorter one padded with zeros. */
function sameHmacKey(a: string, b: string): boolean {
  const key = (s: string) => {
    const bytes = utf8(s);
    const block = bytes.length > 64 ? createHash("sha256").update(bytes).digest() : bytes;
    let end = block.length;
    while (end > 0 && block[end - 1] === 0) end--;
    return block.subarray(0, end);
  };
  return sameBytes(key(a), key(b));
}

function rewriteTimestamp(ts: string, form: TimestampForm): string | undefined {
  const digits = (base: number) =>
    [...ts].map((d) => String.fromCodePoint(base + Number(d))).join("");
  switch (form) {
    case "leading-zero":
      return `0${ts}`;
    case "plus":
      return `+${ts}`;
    case "minus":
      return `-${ts}`;
    case "decimal":
      return `${ts}.0`;
    case "exponent":
      return `${ts.slice(0, 1)}.${ts.slice(1)}e${ts.length - 1}`;
    case "milliseconds":
      return `${ts}000`;
    case "inner-space":
      return `${ts.slice(0, 4)} ${ts.slice(4)}`;
    case "hex":
      return `0x${Number(ts).toString(16)}`;
    case "fullwidth":
      return digits(0xff10);
    case "arabic-indic":
      return digits(0x0660);
    case "sixteen-digits":
      return ts.padStart(16, "0");
    case "empty":
      return "";
    case "blank":
      return " \t ";
    case "remove":
      return undefined;
  }
}

function changeSecret(secret: string, c: SecretChange): string {
  switch (c.k) {
    case "decoy":
      return DECOY_SECRETS[c.n % DECOY_SECRETS.length] as string;
    case "char": {
      const i = c.i % secret.length;
      const code = ((secret.charCodeAt(i) + c.step) % 0xd7ff) + 1;
      return secret.slice(0, i) + String.fromCharCode(code) + secret.slice(i + 1);
    }
    case "append":
      return secret + c.c;
    case "prepend":
      return c.c + secret;
    case "truncate":
      return secret.slice(0, 1 + (c.n % (secret.length - 1)));
    case "newline":
      return `${secret}\n`;
    case "leading-space":
      return ` ${secret}`;
    case "no-prefix":
      return secret.replace(/^whsec_/, "");
    case "uppercase":
      return secret.toUpperCase();
  }
}

function mapValidTokens(m: Model, s: Signed, fn: (token: string) => string): [string, string][] {
  return m.headers.map(([n, v]) =>
    n === V1
      ? [
          n,
          v
            .split(/([\s,]+)/)
            .map((part) => (part === s.token ? fn(part) : part))
            .join(""),
        ]
      : [n, v],
  );
}

/** Applies a change that must be refused. */
function applyMutation(m: Model, s: Signed, mu: Mutation): Model {
  const ts = values(m, TIMESTAMP)[0] ?? String(s.ts);
  switch (mu.g) {
    case "body": {
      let body = m.body;
      for (const e of mu.edits) body = applyBodyEdit(body, e);
      // Two edits may undo each other: then the first byte changes as well.
      if (sameBytes(body, s.body)) body = applyBodyEdit(body, { k: "flip", i: 0, mask: 1 });
      return { ...m, body };
    }
    case "ts": {
      const others = without(m, TIMESTAMP);
      if (mu.how === "shift")
        return { ...m, headers: [...others, [TIMESTAMP, String(s.ts + mu.delta)]] };
      if (mu.how === "duplicate") {
        return { ...m, headers: [...m.headers, [TIMESTAMP, String(s.ts + mu.delta)]] };
      }
      const value =
        mu.how === "rewrite"
          ? rewriteTimestamp(ts, mu.form)
          : mu.value.trim() === ts
            ? `${mu.value}0`
            : mu.value;
      return { ...m, headers: value === undefined ? others : [...others, [TIMESTAMP, value]] };
    }
    case "sig": {
      const hex = s.token.slice(3);
      switch (mu.how) {
        case "remove":
          return { ...m, headers: without(m, V1) };
        case "uppercase":
          // 64 hex digits without a letter: vanishingly rare, then a digit changes instead.
          return {
            ...m,
            headers: mapValidTokens(m, s, () =>
              /[a-f]/.test(hex) ? `v1=${hex.toUpperCase()}` : `v1=${flipDigit(hex, 0, 1)}`,
            ),
          };
        case "digit":
          return {
            ...m,
            headers: mapValidTokens(m, s, () => `v1=${flipDigit(hex, mu.i, mu.step)}`),
          };
        case "length":
          return {
            ...m,
            headers: mapValidTokens(m, s, () =>
              mu.delta < 0
                ? `v1=${hex.slice(0, 64 + mu.delta)}`
                : `v1=${hex}${hex.slice(0, mu.delta)}`,
            ),
          };
        case "scheme":
          return { ...m, headers: mapValidTokens(m, s, () => `${mu.prefix}${hex}`) };
        case "confuse":
          // Computed last, over the final body and timestamp (see mutate).
          return m;
        case "crowd": {
          const present = values(m, V1)
            .flatMap((v) => v.split(/[\s,]+/))
            .filter((t) => /^v1=[0-9a-f]{64}$/.test(t)).length;
          const added = mu.hexes
            .slice(0, Math.max(0, MAX_SIGNATURE_CANDIDATES - present) + mu.extra)
            .map((h) => `v1=${h}`)
            .join(",");
          if (mu.separate) return { ...m, headers: [...m.headers, [V1, added]] };
          let joined = false;
          const headers = m.headers.map(([n, v]): [string, string] => {
            if (n !== V1 || joined) return [n, v];
            joined = true;
            return [n, `${v},${added}`];
          });
          return { ...m, headers };
        }
      }
      break;
    }
    case "id":
    case "type": {
      const name = mu.g === "id" ? ID : TYPE;
      const original = mu.g === "id" ? s.id : s.type;
      if (mu.how === "duplicate") {
        const present = values(m, name).length;
        const extra: [string, string][] = Array(present === 0 ? 2 : 1).fill([name, original]);
        return { ...m, headers: [...m.headers, ...extra] };
      }
      const value = mu.value.trim() === original ? `${mu.value}!` : mu.value;
      return { ...m, headers: [...without(m, name), [name, value]] };
    }
    case "secret": {
      const secrets = mu.how.map((c) => {
        const changed = changeSecret(s.secret, c);
        // Not a wrong secret after all (same HMAC key, or unusable): a decoy instead.
        return sameHmacKey(changed, s.secret) || changed.trim() === "" ? OTHER_SECRET : changed;
      });
      return { ...m, secrets };
    }
    case "now": {
      const beyond = (mu.future ? -1 : 1) * mu.beyond;
      return { ...m, nowMs: (s.ts + beyond) * 1000 + (mu.future ? 0 : 999) };
    }
  }
  return m;
}

function flipDigit(hex: string, i: number, step: number): string {
  const digits = "0123456789abcdef";
  const next = digits[(digits.indexOf(hex[i] ?? "0") + step) % 16] ?? "0";
  return hex.slice(0, i) + next + hex.slice(i + 1);
}

/** A signature a forger could get hold of: valid, but over something else. */
function confusedToken(m: Model, s: Signed, which: Confusion): string {
  const ts = values(m, TIMESTAMP)[0]?.trim() ?? String(s.ts);
  const body = Buffer.from(m.body);
  const mac = (secret: string, ...parts: (string | Uint8Array)[]) =>
    nodeHmac(secret, Buffer.concat(parts.map((p) => (typeof p === "string" ? Buffer.from(p) : p))));
  switch (which) {
    case "legacy-v0":
      return `v1=${mac(s.secret, body)}`;
    case "no-dot":
      return `v1=${mac(s.secret, ts, body)}`;
    case "swapped":
      return `v1=${mac(s.secret, body, ".", ts)}`;
    case "other-ts":
      return `v1=${mac(s.secret, String(Number(ts) + 1), ".", body)}`;
    case "attacker":
      return `v1=${mac(ATTACKER_SECRET, ts, ".", body)}`;
    case "body-only-dot":
      return `v1=${mac(s.secret, ".", body)}`;
  }
}

function mutate(s: Signed, k: Keep, list: Mutation[]): Model {
  let m = applyKeep(baseModel(s), s, k);
  for (const mu of list) m = applyMutation(m, s, mu);
  const confuse = list.find((mu) => mu.g === "sig" && mu.how === "confuse");
  if (confuse?.g === "sig" && confuse.how === "confuse") {
    const token = confusedToken(m, s, confuse.which);
    m = { ...m, headers: mapValidTokens(m, s, () => token) };
  }
  return m;
}

// ------------------------------------------------------------------ dressing: the same delivery, other forms

interface Dress {
  container: "headers" | "record" | "node-record" | "pairs" | "map";
  payload: "u8" | "u8-offset" | "arraybuffer" | "buffer" | "dataview" | "string";
  /** Per header: name case and value padding. */
  styles: number[];
  nowAsDate: boolean;
  /** A lone secret as a string rather than an array of one. */
  secretAsString: boolean;
}

const dress: fc.Arbitrary<Dress> = fc.record({
  container: fc.constantFrom("headers", "record", "node-record", "pairs", "map"),
  payload: fc.constantFrom("u8", "u8-offset", "arraybuffer", "buffer", "dataview", "string"),
  styles: fc.array(fc.nat(), { minLength: 12, maxLength: 12 }),
  nowAsDate: fc.boolean(),
  secretAsString: fc.boolean(),
});

const PADS = ["", " ", "\t", "  ", " \t"];

function caseName(name: string, style: number): string {
  switch (style % 4) {
    case 0:
      return name;
    case 1:
      return name.toUpperCase();
    case 2:
      return name.replace(/(^|-)([a-z])/g, (_, dash: string, c: string) => dash + c.toUpperCase());
    default:
      return [...name].map((c, i) => (i % 2 ? c.toUpperCase() : c)).join("");
  }
}

function dressHeaders(m: Model, d: Dress): Parameters<typeof verifyWebhook>[0]["headers"] {
  const pairs: [string, string][] = m.headers.map(([n, v], i) => {
    const style = d.styles[i % d.styles.length] ?? 0;
    const pad = (x: number) => PADS[x % PADS.length] ?? "";
    return [caseName(n, style), `${pad(style >> 2)}${v}${pad(style >> 5)}`];
  });
  switch (d.container) {
    case "headers":
      try {
        const headers = new Headers();
        for (const [n, v] of pairs) headers.append(n, v);
        return headers;
      } catch {
        // A value Headers refuses (a control character, a code point over 0xFF): plain pairs.
        return pairs;
      }
    case "record":
    case "node-record": {
      const record: Record<string, string | string[]> = {};
      for (const [n, v] of pairs) {
        const name = d.container === "node-record" ? n.toLowerCase() : n;
        const prior = record[name];
        record[name] = prior === undefined ? v : [...(Array.isArray(prior) ? prior : [prior]), v];
      }
      return record;
    }
    case "map":
      // A Map keeps one value per name: only when no name repeats exactly.
      return new Set(pairs.map(([n]) => n)).size === pairs.length ? new Map(pairs) : pairs;
    case "pairs":
      return pairs;
  }
}

function dressPayload(body: Uint8Array, d: Dress): Parameters<typeof verifyWebhook>[0]["payload"] {
  switch (d.payload) {
    case "u8":
      return body;
    case "u8-offset": {
      // A view into a larger buffer, with other bytes before and after it.
      const buffer = new Uint8Array(body.length + 19).fill(0x7b);
      buffer.set(body, 11);
      return buffer.subarray(11, 11 + body.length);
    }
    case "arraybuffer":
      return body.slice().buffer;
    case "buffer":
      return Buffer.from(body);
    case "dataview": {
      const buffer = new Uint8Array(body.length + 5);
      buffer.set(body, 3);
      return new DataView(buffer.buffer, 3, body.length) as unknown as Uint8Array;
    }
    case "string":
      try {
        return strictDecoder.decode(body);
      } catch {
        return body;
      }
  }
}

async function outcome(m: Model, d: Dress): Promise<{ event?: { id: unknown }; error?: unknown }> {
  let pending: Promise<{ id: unknown }>;
  try {
    pending = verifyWebhook({
      payload: dressPayload(m.body, d),
      headers: dressHeaders(m, d),
      secret: m.secrets.length === 1 && d.secretAsString ? (m.secrets[0] as string) : m.secrets,
      now: d.nowAsDate ? new Date(m.nowMs) : m.nowMs,
    });
  } catch (error) {
    throw new Error(`verifyWebhook threw synchronously: ${String(error)}`);
  }
  try {
    return { event: await pending };
  } catch (error) {
    return { error };
  }
}

const describeModel = (m: Model) =>
  JSON.stringify({
    body: Buffer.from(m.body).toString("latin1").slice(0, 200),
    headers: m.headers,
    secrets: m.secrets,
    nowMs: m.nowMs,
  });

// ------------------------------------------------------------------ properties

const corpusIndex = fc.nat({ max: CORPUS.length - 1 });
const TIMEOUT = FULL ? 600_000 : 60_000;

describe("verifyWebhook fuzzing", () => {
  it(
    "refuses every changed delivery with a WebhookVerificationError, and accepts it unchanged",
    async () => {
      await fc.assert(
        fc.asyncProperty(
          corpusIndex,
          keep,
          fc.oneof(
            { arbitrary: fc.constant([] as Mutation[]), weight: 1 },
            { arbitrary: mutations, weight: 7 },
          ),
          dress,
          async (index, k, list, d) => {
            const s = CORPUS[index] as Signed;
            const m = mutate(s, k, list);
            const { event, error } = await outcome(m, d);
            if (list.length === 0) {
              if (event?.id !== s.id) {
                throw new Error(
                  `the unchanged delivery was refused: ${String(error)}\n${describeModel(m)}`,
                );
              }
              return;
            }
            if (
              !(error instanceof WebhookVerificationError) ||
              error.reason === "payload_not_raw"
            ) {
              throw new Error(
                `a changed delivery was ${event ? "ACCEPTED" : `refused with ${String(error)}`}\n${describeModel(m)}`,
              );
            }
          },
        ),
        fuzzParams(100_000),
      );
    },
    TIMEOUT,
  );

  it(
    "lets nothing but a WebhookVerificationError out of arbitrary payloads and headers",
    async () => {
      await fc.assert(
        fc.asyncProperty(arbitraryCall, async (call) => {
          let pending: Promise<unknown>;
          try {
            pending = verifyWebhook(call.options);
          } catch (error) {
            throw new Error(`verifyWebhook threw synchronously: ${String(error)}`);
          }
          try {
            const event = (await pending) as Record<string, unknown>;
            if (!call.signed) throw new Error("accepted a delivery this test never signed");
            if (typeof event.id !== "string" || typeof event.type !== "string") {
              throw new Error("accepted an event without a string id and type");
            }
          } catch (error) {
            if (error instanceof WebhookVerificationError) return;
            throw error;
          }
        }),
        fuzzParams(30_000),
      );
    },
    TIMEOUT,
  );
});

// ------------------------------------------------------------------ arbitrary calls

const NOW_S = TS;

/** Header values near the shapes verification looks for, and anything at all. */
const headerValue = fc.oneof(
  fc.string({ unit: "binary", maxLength: 40 }),
  fc.string({ unit: "binary-ascii", maxLength: 80 }),
  fc.integer({ min: NOW_S - 400, max: NOW_S + 400 }).map(String),
  fc.stringMatching(/^\s*\d{0,17}\s*$/),
  hex64.map((h) => `v1=${h}`),
  fc
    .array(fc.stringMatching(/^v\d{1,2}=[0-9a-fA-F]{0,66}$/), { maxLength: 4 })
    .map((t) => t.join(", ")),
  // Around the most candidates read.
  fc
    .array(
      hex64.map((h) => `v1=${h}`),
      { minLength: MAX_SIGNATURE_CANDIDATES - 1, maxLength: MAX_SIGNATURE_CANDIDATES + 2 },
    )
    .map((t) => t.join(",")),
);

const headerName = fc.oneof(
  fc.constantFrom(ID, TYPE, TIMESTAMP, V1, LEGACY, "X-Service-Timestamp", "X-SERVICE-SIGNATURE-V1"),
  fc.string({ maxLength: 20 }),
);

const headerPairs = fc.array(fc.tuple(headerName, headerValue), { maxLength: 8 });

const arbitraryHeaders = fc.oneof(
  headerPairs,
  headerPairs.map((pairs) => {
    const record: Record<string, string | string[] | undefined> = {};
    for (const [n, v] of pairs) record[n] = v;
    return record;
  }),
  fc.dictionary(
    headerName,
    fc.oneof(headerValue, fc.array(headerValue, { maxLength: 3 }), fc.constant(undefined)),
  ),
  headerPairs.map((pairs) => {
    const headers = new Headers();
    for (const [n, v] of pairs) {
      try {
        headers.append(n, v);
      } catch {
        // Not a header Headers can hold.
      }
    }
    return headers;
  }),
);

const secretArb = fc.oneof(
  fc.constantFrom(...SECRETS),
  fc.string({ unit: "binary", minLength: 1, maxLength: 80 }).filter((s) => s.trim() !== ""),
);

/** Lone surrogates, which a UTF-8 encoder turns into U+FFFD. */
const surrogateString = fc
  .array(fc.integer({ min: 0, max: 0xffff }), { maxLength: 40 })
  .map((codes) => String.fromCharCode(...codes));

const TRICKY_BODIES = [
  '{"__proto__":{"id":"x","type":"y"},"created_at":"c","data":{}}',
  '{"id":"e","type":"t","created_at":"c","data":{},"constructor":{"prototype":{"polluted":1}}}',
  '{"id":"e","id":"f","type":"t","created_at":"c","data":{}}',
  '{"id":"","type":"t","created_at":"c","data":{}}',
  '{"id":"e","type":"t","created_at":"c","data":[]}',
  '{"id":"\\ud800","type":"t","created_at":"c","data":{}}',
  "null",
  "1e999",
];

/** Deep bodies: at the re-serialization hint's depth bound and past it, up to 100 000 deep. */
const deepBody = deeplyNestedJson([RESERIALIZED_HINT_MAX_DEPTH]).map(utf8);

/** Bodies to sign correctly: verification then judges the event itself. */
const signedBody = fc.oneof(
  byteArray(0, 200),
  fc.json().map(utf8),
  fc.string({ unit: "binary", maxLength: 100 }).map(utf8),
  fc
    .record(
      {
        id: fc.oneof(fc.string(), fc.jsonValue()),
        type: fc.oneof(fc.string(), fc.jsonValue()),
        created_at: fc.oneof(fc.string(), fc.jsonValue()),
        data: fc.oneof(fc.object(), fc.jsonValue()),
      },
      { requiredKeys: [] },
    )
    .map((o) => utf8(JSON.stringify(o))),
  deepBody,
  fc.constantFrom(...TRICKY_BODIES).map(utf8),
);

interface ArbitraryCall {
  options: Parameters<typeof verifyWebhook>[0];
  signed: boolean;
}

/**
 * A body (deep ones often) with up to two candidates more than are read, the
 * valid signature among them or not: a wrong one reaches the mismatch hints,
 * and a valid one counts only within the cap.
 */
const candidatesCall: fc.Arbitrary<ArbitraryCall> = fc
  .record({
    body: fc.oneof(deepBody, signedBody),
    secret: secretArb,
    skew: fc.integer({ min: -TOLERANCE, max: TOLERANCE }),
    wrong: fc.array(hex64, { maxLength: MAX_SIGNATURE_CANDIDATES + 2 }),
    validAt: fc.option(fc.nat(), { nil: undefined }),
    separator: fc.constantFrom(",", ", ", " "),
    asString: fc.boolean(),
  })
  .filter(({ wrong, validAt }) => wrong.length > 0 || validAt !== undefined)
  .map(({ body, secret, skew, wrong, validAt, separator, asString }) => {
    const ts = NOW_S + skew;
    const tokens = wrong.map((h) => `v1=${h}`);
    if (validAt !== undefined) {
      const mac = nodeHmac(secret, Buffer.concat([Buffer.from(`${ts}.`), body]));
      tokens.splice(validAt % (tokens.length + 1), 0, `v1=${mac}`);
    }
    return {
      options: {
        payload: (asString ? safeDecode(body) : undefined) ?? body,
        headers: [
          [TIMESTAMP, String(ts)],
          [V1, tokens.join(separator)],
        ] as [string, string][],
        secret,
        now: NOW_S * 1000,
      },
      signed: validAt !== undefined && tokens.length <= MAX_SIGNATURE_CANDIDATES,
    };
  });

const arbitraryCall: fc.Arbitrary<ArbitraryCall> = fc.oneof(
  // Anything as the payload, anything as headers.
  fc
    .record({
      payload: fc.oneof(
        fc.anything({
          withBoxedValues: true,
          withMap: true,
          withSet: true,
          withBigInt: true,
          withDate: true,
          withNullPrototype: true,
          withTypedArray: true,
          withSparseArray: true,
        }),
        byteArray(0, 300),
        fc.string({ unit: "binary", maxLength: 200 }),
        surrogateString,
      ),
      headers: arbitraryHeaders,
      secret: fc.oneof(secretArb, fc.array(secretArb, { minLength: 1, maxLength: 3 })),
      now: fc.oneof(
        fc.integer({ min: (NOW_S - 600) * 1000, max: (NOW_S + 600) * 1000 }),
        fc.integer({ min: -8.64e15, max: 8.64e15 }),
      ),
      toleranceSeconds: fc.option(fc.oneof(fc.nat(), fc.constant(Number.POSITIVE_INFINITY)), {
        nil: undefined,
      }),
    })
    .map((options) => ({ options: options as ArbitraryCall["options"], signed: false })),
  // A correctly signed arbitrary body, with arbitrary extra headers.
  fc
    .record({
      body: signedBody,
      secret: secretArb,
      skew: fc.integer({ min: -TOLERANCE, max: TOLERANCE }),
      extra: headerPairs,
      asString: fc.boolean(),
    })
    .map(({ body, secret, skew, extra, asString }) => {
      const ts = NOW_S + skew;
      const mac = nodeHmac(secret, Buffer.concat([Buffer.from(`${ts}.`), body]));
      const text = asString ? safeDecode(body) : undefined;
      return {
        options: {
          payload: text ?? body,
          headers: [[TIMESTAMP, String(ts)], [V1, `v1=${mac}`], ...extra] as [string, string][],
          secret,
          now: NOW_S * 1000,
        },
        signed: true,
      };
    }),
  candidatesCall,
);

function safeDecode(bytes: Uint8Array): string | undefined {
  try {
    return strictDecoder.decode(bytes);
  } catch {
    return undefined;
  }
}
