import { execFileSync } from "node:child_process";
import { describe, expect, it, vi } from "vitest";
import { RESERIALIZED_HINT_MAX_DEPTH } from "../../src/webhooks/errors.js";
import { signWebhook, verifyWebhook, WebhookVerificationError } from "../../src/webhooks/index.js";
import { MAX_SIGNATURE_CANDIDATES } from "../../src/webhooks/verify.js";
import { nestedJson, VERY_DEEP } from "../helpers/nested-json.js";
import {
  documentsAvailable,
  NOW_MS,
  nodeHmac,
  nodeSignedHeaders,
  OTHER_SECRET,
  SECRET,
  statusChanged,
  TS,
} from "./fixtures.js";

const body = JSON.stringify(statusChanged);

async function refusal(promise: Promise<unknown>): Promise<WebhookVerificationError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(WebhookVerificationError);
    return error as WebhookVerificationError;
  }
  throw new Error("expected verification to fail");
}

/** The refusal of `text`, correctly signed (headers naming statusChanged's id and type). */
function signedRefusal(text: string): Promise<WebhookVerificationError> {
  return refusal(
    verifyWebhook({
      payload: text,
      headers: nodeSignedHeaders(text, { event: statusChanged }),
      secret: SECRET,
      now: NOW_MS,
    }),
  );
}

function flipHexDigit(signatureHeader: string, index: number): string {
  const hex = signatureHeader.slice(3);
  const digit = hex[index] === "0" ? "1" : "0";
  return `v1=${hex.slice(0, index)}${digit}${hex.slice(index + 1)}`;
}

describe("verifyWebhook interop", () => {
  it("accepts a signature computed independently with node:crypto", async () => {
    const event = await verifyWebhook({
      payload: body,
      headers: nodeSignedHeaders(body),
      secret: SECRET,
      now: NOW_MS,
    });
    expect(event).toEqual(statusChanged);
  });

  it("accepts a signature computed by the openssl command line over non-ASCII text", () => {
    const text = JSON.stringify({
      ...documentsAvailable,
      data: { ...documentsAvailable.data, note: "Clínica São José — 病院" },
    });
    const out = execFileSync(
      "sh",
      ["-c", 'printf \'%s\' "$MESSAGE" | openssl dgst -sha256 -hmac "$SECRET"'],
      { env: { ...process.env, MESSAGE: `${TS}.${text}`, SECRET }, encoding: "utf8" },
    );
    const hex = out.trim().split(/\s+/).at(-1) ?? "";
    expect(hex).toMatch(/^[0-9a-f]{64}$/);
    return expect(
      verifyWebhook({
        payload: new TextEncoder().encode(text),
        headers: { "x-service-timestamp": String(TS), "x-service-signature-v1": `v1=${hex}` },
        secret: SECRET,
        now: NOW_MS,
      }),
    ).resolves.toMatchObject({ id: documentsAvailable.id });
  });

  it("accepts the payload as string, Uint8Array, ArrayBuffer and Node Buffer", async () => {
    const headers = nodeSignedHeaders(body);
    const bytes = new TextEncoder().encode(body);
    for (const payload of [body, bytes, bytes.buffer, Buffer.from(body)]) {
      await expect(
        verifyWebhook({ payload, headers, secret: SECRET, now: NOW_MS }),
      ).resolves.toMatchObject({ type: "retrieval_request.status_changed" });
    }
  });

  it("verifies what signWebhook produced, and its legacy v0 signature covers the body alone", async () => {
    const headers = await signWebhook({ payload: body, secret: SECRET, timestamp: TS });
    expect(headers).toEqual(nodeSignedHeaders(body));
    await expect(
      verifyWebhook({ payload: body, headers, secret: SECRET, now: NOW_MS }),
    ).resolves.toEqual(statusChanged);
  });
});

describe("verifyWebhook refuses altered deliveries", () => {
  const headers = nodeSignedHeaders(body);

  it("fails with signature_mismatch when one byte of the body changes", async () => {
    const altered = body.replace("rr_01J9Z", "rr_01J9Y");
    const error = await refusal(
      verifyWebhook({ payload: altered, headers, secret: SECRET, now: NOW_MS }),
    );
    expect(error.reason).toBe("signature_mismatch");
  });

  it("fails with signature_mismatch when the timestamp changes within tolerance", async () => {
    const error = await refusal(
      verifyWebhook({
        payload: body,
        headers: { ...headers, "x-service-timestamp": String(TS + 1) },
        secret: SECRET,
        now: NOW_MS,
      }),
    );
    expect(error.reason).toBe("signature_mismatch");
  });

  it("fails with signature_mismatch when one hex digit of the signature changes", async () => {
    for (const index of [0, 31, 63]) {
      const error = await refusal(
        verifyWebhook({
          payload: body,
          headers: {
            ...headers,
            "x-service-signature-v1": flipHexDigit(headers["x-service-signature-v1"] ?? "", index),
          },
          secret: SECRET,
          now: NOW_MS,
        }),
      );
      expect(error.reason).toBe("signature_mismatch");
    }
  });

  it("fails with signature_mismatch under the wrong secret", async () => {
    const error = await refusal(
      verifyWebhook({ payload: body, headers, secret: OTHER_SECRET, now: NOW_MS }),
    );
    expect(error.reason).toBe("signature_mismatch");
  });
});

describe("verifyWebhook timestamp tolerance", () => {
  const headers = nodeSignedHeaders(body);
  const at = (offsetSeconds: number) =>
    verifyWebhook({ payload: body, headers, secret: SECRET, now: NOW_MS + offsetSeconds * 1000 });

  it("accepts a delivery exactly 300 s old or 300 s ahead", async () => {
    await expect(at(300)).resolves.toBeDefined();
    await expect(at(-300)).resolves.toBeDefined();
  });

  it("refuses a delivery 301 s old and reports the skew", async () => {
    const error = await refusal(at(301));
    expect(error.reason).toBe("timestamp_out_of_tolerance");
    expect(error.skewSeconds).toBe(301);
    expect(error.message).toContain("301 s in the past");
  });

  it("refuses a delivery 301 s in the future and reports the skew", async () => {
    const error = await refusal(at(-301));
    expect(error.reason).toBe("timestamp_out_of_tolerance");
    expect(error.skewSeconds).toBe(-301);
    expect(error.message).toContain("301 s in the future");
  });

  it("a `now` that disagrees with this machine's clock, on a timestamp that agrees with it, is refused with: remove the `now` option", async () => {
    const fresh = await signWebhook({ payload: body, secret: SECRET });
    for (const offsetMs of [7_200_000, -7_200_000, 301_000]) {
      const error = await refusal(
        verifyWebhook({
          payload: body,
          headers: fresh,
          secret: SECRET,
          now: Date.now() + offsetMs,
        }),
      );
      expect(error.reason).toBe("timestamp_out_of_tolerance");
      expect(error.message).toContain("agrees with this machine's clock: remove the `now` option");
      expect(error.message).not.toContain("t.now");
    }
  });

  it("off this machine's clock too, the refusal names NTP and, with a `now`, says a mock's clock is not the one to give", async () => {
    for (const offset of [7200, -7200, 301, -301]) {
      const error = await refusal(at(offset));
      expect(error.message).not.toContain("remove the `now` option.");
      expect(error.hints.join(" ")).toMatch(/NTP/);
      expect(error.hints.join(" ")).toContain("If `now` follows a mock's clock, remove it");
      expect(error.message).not.toContain("t.now");
    }
  });

  it("honours a custom tolerance and accepts a Date for now", async () => {
    await expect(
      verifyWebhook({
        payload: body,
        headers,
        secret: SECRET,
        toleranceSeconds: 10,
        now: new Date(NOW_MS + 10_000),
      }),
    ).resolves.toBeDefined();
    const error = await refusal(
      verifyWebhook({
        payload: body,
        headers,
        secret: SECRET,
        toleranceSeconds: 10,
        now: NOW_MS + 11_000,
      }),
    );
    expect(error.reason).toBe("timestamp_out_of_tolerance");
  });

  it("refuses an invalid clock instead of skipping the tolerance check", async () => {
    await expect(
      verifyWebhook({ payload: body, headers, secret: SECRET, now: new Date("nope") }),
    ).rejects.toThrow(TypeError);
  });

  it("checks the timestamp before the signature, so a stale replay is named as such", async () => {
    const error = await refusal(
      verifyWebhook({ payload: "tampered", headers, secret: SECRET, now: NOW_MS + 3_600_000 }),
    );
    expect(error.reason).toBe("timestamp_out_of_tolerance");
  });
});

describe("verifyWebhook headers", () => {
  const signed = nodeSignedHeaders(body);
  const ts = signed["x-service-timestamp"] ?? "";
  const sig = signed["x-service-signature-v1"] ?? "";
  const verifyWith = (headers: Parameters<typeof verifyWebhook>[0]["headers"]) =>
    verifyWebhook({ payload: body, headers, secret: SECRET, now: NOW_MS });

  it("fails with missing_header without the timestamp or the V1 signature", async () => {
    const noTs = await refusal(verifyWith({ "x-service-signature-v1": sig }));
    expect(noTs.reason).toBe("missing_header");
    expect(noTs.header).toBe("x-service-timestamp");
    expect(noTs.message).toContain("X-Service-Timestamp");

    const noSig = await refusal(
      verifyWith({
        "x-service-timestamp": ts,
        "x-service-signature": signed["x-service-signature"],
      }),
    );
    expect(noSig.reason).toBe("missing_header");
    expect(noSig.message).toContain("X-Service-Signature-V1");
  });

  it.each([
    ["no v1= prefix", { "x-service-signature-v1": sig.slice(3) }],
    ["a short hex", { "x-service-signature-v1": sig.slice(0, -1) }],
    ["uppercase hex", { "x-service-signature-v1": `v1=${sig.slice(3).toUpperCase()}` }],
    ["a v0= signature only", { "x-service-signature-v1": signed["x-service-signature"] }],
    ["a non-integer timestamp", { "x-service-timestamp": `${ts}.5` }],
    ["a timestamp in milliseconds notation", { "x-service-timestamp": "1.7e9" }],
    ["a date as timestamp", { "x-service-timestamp": "2026-01-01T00:00:00Z" }],
  ])("fails with malformed_header for %s", async (_, override) => {
    const error = await refusal(verifyWith({ ...signed, ...override }));
    expect(error.reason).toBe("malformed_header");
  });

  it("reads header names whatever their case and container", async () => {
    const mixed = {
      "X-Service-Timestamp": ts,
      "X-SERVICE-SIGNATURE-V1": sig,
      "X-Webhook-Event-Id": statusChanged.id,
    };
    const shapes = [
      new Headers(mixed),
      signed,
      mixed,
      Object.entries(mixed) as [string, string][],
      new Map(Object.entries(mixed)),
    ];
    for (const headers of shapes) {
      await expect(verifyWith(headers)).resolves.toMatchObject({ id: statusChanged.id });
    }
  });

  it("accepts when any of several v1= values matches, comma or space separated", async () => {
    const other = `v1=${"0".repeat(64)}`;
    await expect(
      verifyWith({ ...signed, "x-service-signature-v1": `${other}, ${sig}` }),
    ).resolves.toBeDefined();
    await expect(
      verifyWith({ ...signed, "x-service-signature-v1": `${other} ${sig}` }),
    ).resolves.toBeDefined();
    // Node hands a repeated header over as an array.
    await expect(
      verifyWith({ "x-service-timestamp": ts, "x-service-signature-v1": [other, sig] }),
    ).resolves.toBeDefined();
    const error = await refusal(verifyWith({ ...signed, "x-service-signature-v1": other }));
    expect(error.reason).toBe("signature_mismatch");
  });

  it("accepts a valid signature as the last of MAX_SIGNATURE_CANDIDATES v1= values, and refuses one value more as malformed_header", async () => {
    const wrong = (i: number) => `v1=${i.toString(16).padStart(64, "0")}`;
    const wrongs = (n: number) => Array.from({ length: n }, (_, i) => wrong(i + 1));
    const atCap = [...wrongs(MAX_SIGNATURE_CANDIDATES - 1), sig];
    const pastCap = [...wrongs(MAX_SIGNATURE_CANDIDATES), sig];
    // Joined in one header, and repeated headers as Node hands them over.
    for (const value of [atCap.join(", "), atCap]) {
      await expect(
        verifyWith({ "x-service-timestamp": ts, "x-service-signature-v1": value }),
      ).resolves.toMatchObject({ id: statusChanged.id });
    }
    for (const value of [pastCap.join(", "), pastCap, [sig, ...wrongs(MAX_SIGNATURE_CANDIDATES)]]) {
      const error = await refusal(
        verifyWith({ "x-service-timestamp": ts, "x-service-signature-v1": value }),
      );
      expect(error.reason).toBe("malformed_header");
      expect(error.header).toBe("x-service-signature-v1");
      expect(error.message).toContain(`more than ${MAX_SIGNATURE_CANDIDATES}`);
    }
  });

  it("counts only v1= values toward MAX_SIGNATURE_CANDIDATES, not other schemes", async () => {
    const others = Array.from({ length: MAX_SIGNATURE_CANDIDATES }, (_, i) => `v2=${i}`);
    const v1s = Array.from({ length: MAX_SIGNATURE_CANDIDATES - 1 }, () => `v1=${"0".repeat(64)}`);
    await expect(
      verifyWith({ ...signed, "x-service-signature-v1": [...others, ...v1s, sig].join(" ") }),
    ).resolves.toMatchObject({ id: statusChanged.id });
  });

  it("skips signatures of other schemes beside a v1= value", async () => {
    await expect(
      verifyWith({ ...signed, "x-service-signature-v1": `v2=abc ${sig}` }),
    ).resolves.toBeDefined();
  });
});

describe("verifyWebhook secrets", () => {
  const headers = nodeSignedHeaders(body);

  it("accepts when the second of two secrets matches", async () => {
    await expect(
      verifyWebhook({ payload: body, headers, secret: [OTHER_SECRET, SECRET], now: NOW_MS }),
    ).resolves.toEqual(statusChanged);
  });

  it("refuses an empty secret as a configuration error, not a bad delivery", async () => {
    for (const secret of ["", "  ", [], [SECRET, ""]]) {
      await expect(verifyWebhook({ payload: body, headers, secret, now: NOW_MS })).rejects.toThrow(
        TypeError,
      );
    }
  });

  it("hints that a secret with surrounding whitespace would match once trimmed", async () => {
    const error = await refusal(
      verifyWebhook({ payload: body, headers, secret: `${SECRET}\n`, now: NOW_MS }),
    );
    expect(error.reason).toBe("signature_mismatch");
    expect(error.message).toMatch(/whitespace/);
    expect(error.message).toMatch(/trim/);
  });

  it("hints that the whsec_ prefix belongs to the key", async () => {
    const error = await refusal(
      verifyWebhook({
        payload: body,
        headers,
        secret: SECRET.slice("whsec_".length),
        now: NOW_MS,
      }),
    );
    expect(error.message).toContain("whsec_");
  });
});

describe("verifyWebhook payload", () => {
  const headers = nodeSignedHeaders(body);

  it("refuses a parsed object with payload_not_raw and says to pass the raw body", async () => {
    const error = await refusal(
      verifyWebhook({
        payload: JSON.parse(body) as unknown as string,
        headers,
        secret: SECRET,
        now: NOW_MS,
      }),
    );
    expect(error.reason).toBe("payload_not_raw");
    expect(error.message).toMatch(/raw (request )?body/);
    expect(error.message).toContain("request.text()");
    expect(error.message).toContain("express.raw");
  });

  it("refuses undefined (no body read) with payload_not_raw", async () => {
    const error = await refusal(
      verifyWebhook({
        payload: undefined as unknown as string,
        headers,
        secret: SECRET,
        now: NOW_MS,
      }),
    );
    expect(error.reason).toBe("payload_not_raw");
  });

  it("hints that a pretty-printed body was re-serialized", async () => {
    const pretty = JSON.stringify(statusChanged, null, 2);
    const error = await refusal(
      verifyWebhook({ payload: pretty, headers, secret: SECRET, now: NOW_MS }),
    );
    expect(error.reason).toBe("signature_mismatch");
    expect(error.message).toMatch(/re-serialized/);
  });

  it("hints that a body whose JSON.stringify differs from it was re-serialized", async () => {
    // The service escaped a character; JSON.stringify of the parsed body would not.
    const escaped = body.replace("case_01J9Y", "case_\\u00e9");
    const error = await refusal(
      verifyWebhook({
        payload: JSON.stringify(JSON.parse(escaped)),
        headers: nodeSignedHeaders(escaped),
        secret: SECRET,
        now: NOW_MS,
      }),
    );
    expect(error.reason).toBe("signature_mismatch");
    // The re-serialized text is itself compact, so only the generic hint applies.
    expect(error.hints.length).toBeGreaterThan(0);
    const raw = await refusal(
      verifyWebhook({
        payload: ` ${escaped}`,
        headers: nodeSignedHeaders(escaped),
        secret: SECRET,
        now: NOW_MS,
      }),
    );
    expect(raw.message).toMatch(/re-serialized/);
  });

  it.each([
    ["not JSON", "not json"],
    ["an array", "[1,2]"],
    ["without data", JSON.stringify({ ...statusChanged, data: undefined })],
    ["with data null", JSON.stringify({ ...statusChanged, data: null })],
    ["without id", JSON.stringify({ ...statusChanged, id: undefined })],
    ["with a numeric type", JSON.stringify({ ...statusChanged, type: 1 })],
    ["without created_at", JSON.stringify({ ...statusChanged, created_at: undefined })],
  ])("fails with invalid_payload for a signed body %s", async (_, text) => {
    expect((await signedRefusal(text)).reason).toBe("invalid_payload");
  });

  it("fails with invalid_payload when X-Webhook-Event-Id or -Type disagrees with the body", async () => {
    for (const override of [
      { "x-webhook-event-id": "rr-other" },
      { "x-webhook-event-type": "retrieval_request.action_required" },
    ]) {
      const error = await refusal(
        verifyWebhook({
          payload: body,
          headers: { ...headers, ...override },
          secret: SECRET,
          now: NOW_MS,
        }),
      );
      expect(error.reason).toBe("invalid_payload");
    }
  });

  it("returns an event of a type this version does not know, since it is signed", async () => {
    const future = JSON.stringify({ ...statusChanged, type: "retrieval_request.archived" });
    await expect(
      verifyWebhook({
        payload: future,
        headers: nodeSignedHeaders(future),
        secret: SECRET,
        now: NOW_MS,
      }),
    ).resolves.toMatchObject({ type: "retrieval_request.archived" });
  });
});

describe("verifyWebhook deeply nested bodies", () => {
  // Signed over another body: every call below is a signature mismatch.
  const wrongHeaders = nodeSignedHeaders(body);
  const mismatch = (payload: string | Uint8Array) =>
    refusal(verifyWebhook({ payload, headers: wrongHeaders, secret: SECRET, now: NOW_MS }));

  it.each(["arrays", "spaced-arrays", "objects", "event", "unclosed"] as const)(
    "refuses %s nested 100 000 deep under a wrong signature with signature_mismatch, not a RangeError",
    async (shape) => {
      const text = nestedJson(VERY_DEEP, shape);
      for (const payload of [text, new TextEncoder().encode(text)]) {
        const error = await mismatch(payload);
        expect(error.reason).toBe("signature_mismatch");
        expect(error.message).not.toMatch(/re-serialized/);
      }
    },
  );

  it("hints re-serialization for a body nested up to the bound, and skips the check one level deeper", async () => {
    const atBound = await mismatch(nestedJson(RESERIALIZED_HINT_MAX_DEPTH, "spaced-arrays"));
    expect(atBound.message).toMatch(/re-serialized/);
    const pastBound = await mismatch(nestedJson(RESERIALIZED_HINT_MAX_DEPTH + 1, "spaced-arrays"));
    expect(pastBound.reason).toBe("signature_mismatch");
    expect(pastBound.message).not.toMatch(/re-serialized/);
    expect(pastBound.hints.length).toBeGreaterThan(0);
  });

  it("counts only brackets outside strings toward the bound", async () => {
    // Brackets in a string value after an escaped backslash and quote: the body is one level deep.
    const note = JSON.stringify(`\\"${"[{".repeat(RESERIALIZED_HINT_MAX_DEPTH)}`);
    const text = `{ "note": ${note} }`;
    expect(JSON.parse(text)).toBeTypeOf("object");
    expect((await mismatch(text)).message).toMatch(/re-serialized/);
  });

  it("fails with invalid_payload for a signed body of arrays nested 100 000 deep", async () => {
    const text = nestedJson(VERY_DEEP, "arrays");
    expect((await signedRefusal(text)).reason).toBe("invalid_payload");
  });

  it("fails with invalid_payload, not the parser's RangeError, when the runtime cannot parse a signed body", async () => {
    const text = nestedJson(VERY_DEEP, "event");
    const headers = nodeSignedHeaders(text, { event: { id: "evt_deep", type: "webhook.test" } });
    // V8 parses any depth; runtimes whose parser has a nesting limit throw RangeError.
    const parse = vi.spyOn(JSON, "parse").mockImplementationOnce(() => {
      throw new RangeError("Maximum call stack size exceeded");
    });
    try {
      const error = await refusal(
        verifyWebhook({ payload: text, headers, secret: SECRET, now: NOW_MS }),
      );
      expect(error.reason).toBe("invalid_payload");
      expect(error.message).toMatch(/nested too deeply/);
      expect(parse).toHaveBeenCalledTimes(1);
    } finally {
      parse.mockRestore();
    }
  });
});

describe("verifyWebhook error messages", () => {
  it("never contain the expected signature, the secret or the body", async () => {
    const headers = nodeSignedHeaders(body);
    const cases: Array<{
      payload: string;
      headers: Record<string, string>;
      secret: string;
      now: number;
    }> = [
      { payload: `${body} `, headers, secret: SECRET, now: NOW_MS },
      { payload: body, headers, secret: `${SECRET} `, now: NOW_MS },
      { payload: body, headers, secret: OTHER_SECRET, now: NOW_MS },
      { payload: JSON.stringify(statusChanged, null, 2), headers, secret: SECRET, now: NOW_MS },
      { payload: body, headers, secret: SECRET, now: NOW_MS + 999_000 },
      {
        payload: body,
        headers: { ...headers, "x-service-timestamp": String(TS + 5) },
        secret: SECRET,
        now: NOW_MS,
      },
      {
        payload: body,
        headers: { ...headers, "x-service-signature-v1": "v1=12" },
        secret: SECRET,
        now: NOW_MS,
      },
    ];
    for (const c of cases) {
      const error = await refusal(verifyWebhook(c));
      const ts = c.headers["x-service-timestamp"] ?? "";
      const forbidden = [
        nodeHmac(c.secret, `${ts}.${c.payload}`),
        nodeHmac(c.secret.trim(), `${ts}.${c.payload}`),
        nodeHmac(SECRET, `${ts}.${c.payload}`),
        SECRET.slice("whsec_".length),
        statusChanged.data.retrieval_request_id,
      ];
      for (const value of forbidden) expect(error.message).not.toContain(value);
    }
  });
});
