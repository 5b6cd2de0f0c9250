// The checks of the runtime matrix (scripts/runtime-matrix.sh), shared by every
// runtime: Node 22, Node 24, Bun and Deno import this file as it is; workerd and
// Chromium run an esbuild bundle of it. It imports `medrecords` from the packed
// tarball installed beside it, never from the sources.
//
// Only what every one of those runtimes has: fetch, Request, Response, Headers,
// TextEncoder and Web Crypto. No node:* import, no `process`, no `Deno`.
//
// Each entry point is imported dynamically and each export looked up by name,
// so that a missing export or an entry point that throws at load fails the
// checks that need it, with a message naming it, instead of the whole file.

/** The checks, in the order they run and are reported. */
export const CHECKS = ["verifyWebhook", "createWebhookHandler", "client"];

/**
 * Runs every check and returns one result per check; never throws.
 * @param {{ baseUrl: string, apiKey: string, label: string }} options
 * @returns {Promise<{ check: string, ok: boolean, detail: string }[]>}
 */
export async function runChecks(options) {
  const results = [];
  for (const [check, fn] of [
    ["verifyWebhook", checkVerifyWebhook],
    ["createWebhookHandler", checkCreateWebhookHandler],
    ["client", checkClient],
  ]) {
    try {
      const detail = await fn(options);
      results.push({ check, ok: true, detail });
    } catch (error) {
      results.push({ check, ok: false, detail: describeError(error) });
    }
  }
  return results;
}

/** One output line: `<runtime>  <check>  ok|FAIL  <detail>`, parsed by the script. */
export function formatResult(label, { check, ok, detail }) {
  return `${label.padEnd(9)} ${check.padEnd(21)} ${ok ? "ok  " : "FAIL"} ${detail}`.trimEnd();
}

// ---------------------------------------------------------------------------
// (1) signWebhook + verifyWebhook

async function checkVerifyWebhook() {
  const wh = await loadEntry("medrecords/webhooks", () => import("medrecords/webhooks"));
  const signWebhook = exported(wh, "medrecords/webhooks", "signWebhook");
  const verifyWebhook = exported(wh, "medrecords/webhooks", "verifyWebhook");
  const WebhookVerificationError = exported(wh, "medrecords/webhooks", "WebhookVerificationError");

  const secret = newSecret();
  const event = statusChangedEvent();
  const body = JSON.stringify(event);
  const timestamp = Math.floor(Date.now() / 1000);
  const headers = await signWebhook({ payload: body, secret, timestamp });

  // The signature is the spec's, computed here independently of the package:
  // hex HMAC-SHA256 keyed with the whole secret over `<timestamp>.<raw body>`.
  const expected = `v1=${await hmacHex(secret, `${timestamp}.${body}`)}`;
  const signature = header(headers, "x-service-signature-v1");
  assert(signature === expected, `signWebhook: V1 signature ${signature} is not ${expected}`);
  assert(
    header(headers, "x-service-timestamp") === String(timestamp),
    "signWebhook: X-Service-Timestamp is not the given timestamp",
  );

  // Accepted as a string with a plain record, and as bytes with a Headers object.
  const verified = await verifyWebhook({ payload: body, headers, secret });
  assertSameEvent(verified, event, "verifyWebhook(string, record)");
  const fromBytes = await verifyWebhook({
    payload: new TextEncoder().encode(body),
    headers: new Headers(headers),
    secret,
  });
  assertSameEvent(fromBytes, event, "verifyWebhook(Uint8Array, Headers)");

  // A tampered body, a wrong secret and an old timestamp are refused.
  const tampered = body.replace(event.data.retrieval_request_id, "rr_forged000000000000000000");
  assert(tampered !== body, "test bug: the body was not tampered with");
  await assertRefused(
    () => verifyWebhook({ payload: tampered, headers, secret }),
    WebhookVerificationError,
    "signature_mismatch",
    "tampered body",
  );
  await assertRefused(
    () => verifyWebhook({ payload: body, headers, secret: newSecret() }),
    WebhookVerificationError,
    "signature_mismatch",
    "wrong secret",
  );
  const stale = await signWebhook({ payload: body, secret, timestamp: timestamp - 3600 });
  await assertRefused(
    () => verifyWebhook({ payload: body, headers: stale, secret }),
    WebhookVerificationError,
    "timestamp_out_of_tolerance",
    "timestamp an hour old",
  );
  return "signed delivery verified; tampered body, wrong secret, stale timestamp refused";
}

// ---------------------------------------------------------------------------
// (2) createWebhookHandler answering a Request

async function checkCreateWebhookHandler() {
  const wh = await loadEntry("medrecords/webhooks", () => import("medrecords/webhooks"));
  const signWebhook = exported(wh, "medrecords/webhooks", "signWebhook");
  const createWebhookHandler = exported(wh, "medrecords/webhooks", "createWebhookHandler");
  const WebhookVerificationError = exported(wh, "medrecords/webhooks", "WebhookVerificationError");

  const secret = newSecret();
  const handled = [];
  const failures = [];
  const handler = createWebhookHandler({
    secret,
    on: {
      "retrieval_request.status_changed": (event, context) => {
        handled.push({ event, request: context.request });
      },
    },
    // Collected, not logged: the refused delivery below is expected.
    onError: (error, context) => failures.push({ error, stage: context.stage }),
  });
  assert(typeof handler === "function", "createWebhookHandler did not return a function");

  const event = statusChangedEvent();
  const body = JSON.stringify(event);
  const signed = await signWebhook({ payload: body, secret });
  const delivery = () =>
    new Request("https://receiver.example/webhooks/medrecords", {
      method: "POST",
      headers: { ...signed, "content-type": "application/json" },
      body,
    });

  const response = await handler(delivery());
  assert(response instanceof Response, "the handler did not answer a Response");
  if (response.status < 200 || response.status >= 300) {
    const stages = failures.map((f) => `${f.stage}: ${describeError(f.error)}`).join("; ");
    throw new Error(
      `a signed delivery was answered ${response.status} (${await response.text()}); onError: ${stages}`,
    );
  }
  const answer = await response.json();
  assert(answer.received === true, `unexpected answer ${JSON.stringify(answer)}`);
  assert(handled.length === 1, `the event handler ran ${handled.length} times, not once`);
  assertSameEvent(handled[0].event, event, "the handler's event");

  // The same delivery again: acknowledged as a duplicate, the handler not run again.
  const again = await handler(delivery());
  assert(again.status >= 200 && again.status < 300, `a duplicate was answered ${again.status}`);
  assert((await again.json()).duplicate === true, "a duplicate was not reported as one");
  assert(handled.length === 1, "the event handler ran again for a duplicate");

  // A bad signature: 4xx, no handler call, the reason reported to onError.
  const forgedEvent = statusChangedEvent();
  const forged = new Request("https://receiver.example/webhooks/medrecords", {
    method: "POST",
    headers: {
      ...(await signWebhook({ payload: JSON.stringify(forgedEvent), secret: newSecret() })),
      "content-type": "application/json",
    },
    body: JSON.stringify(forgedEvent),
  });
  const refused = await handler(forged);
  assert(
    refused.status >= 400 && refused.status < 500,
    `a bad signature was answered ${refused.status}, not 4xx`,
  );
  assert(handled.length === 1, "the event handler ran for a delivery with a bad signature");
  const verifyFailure = failures.find((f) => f.stage === "verify");
  assert(verifyFailure !== undefined, "onError was not told about the bad signature");
  assert(
    verifyFailure.error instanceof WebhookVerificationError &&
      verifyFailure.error.reason === "signature_mismatch",
    `onError got ${describeError(verifyFailure.error)}, not a signature_mismatch`,
  );
  return `signed Request ${response.status}, duplicate ${again.status}, bad signature ${refused.status}`;
}

// ---------------------------------------------------------------------------
// (3) the client against the reference server over HTTP

async function checkClient({ baseUrl, apiKey, label }) {
  assert(typeof baseUrl === "string" && baseUrl !== "", "no reference server URL was given");
  assert(typeof apiKey === "string" && apiKey !== "", "no API key was given");
  const sdk = await loadEntry("medrecords", () => import("medrecords"));
  const MedRecords = exported(sdk, "medrecords", "MedRecords");
  const NotFoundError = exported(sdk, "medrecords", "NotFoundError");

  const mr = new MedRecords({ apiKey, baseUrl, maxRetries: 0, timeoutMs: 15_000 });
  const title = `Doe v. Acme Logistics (${label})`;
  const created = await mr.cases.create({
    title,
    client_name: "Jane Doe",
    case_category: "motor_vehicle_accident",
    date_of_injury: "2025-11-03",
  });
  assert(
    typeof created.id === "string" && created.id.startsWith("case_"),
    `cases.create returned id ${JSON.stringify(created.id)}`,
  );
  assert(created.title === title, `cases.create returned title ${JSON.stringify(created.title)}`);
  assert(created.status === "active", `a new case has status ${JSON.stringify(created.status)}`);

  const fetched = await mr.cases.retrieve(created.id);
  assert(fetched.id === created.id, `cases.retrieve returned ${JSON.stringify(fetched.id)}`);
  assert(
    fetched.title === title && fetched.client_name === "Jane Doe",
    "cases.retrieve: fields differ",
  );
  assert(
    fetched.case_number === created.case_number && typeof fetched.case_number === "string",
    "cases.retrieve: case_number differs from the created one",
  );

  // An unknown case: the error class survives the runtime (instanceof, status).
  const missing = `case_${"0".repeat(24)}`;
  try {
    await mr.cases.retrieve(missing);
  } catch (error) {
    assert(
      error instanceof NotFoundError && error.status === 404,
      `retrieving an unknown case threw ${describeError(error)}, not a NotFoundError (404)`,
    );
    return `created and retrieved ${created.id} over HTTP; unknown case -> NotFoundError`;
  }
  throw new Error(`retrieving the unknown case ${missing} succeeded`);
}

// ---------------------------------------------------------------------------
// helpers

async function loadEntry(name, load) {
  try {
    return await load();
  } catch (error) {
    throw new Error(`import("${name}") failed: ${describeError(error)}`);
  }
}

function exported(namespace, entry, name) {
  const value = namespace[name];
  if (typeof value !== "function") {
    throw new Error(`${entry} does not export ${name} (got ${typeof value})`);
  }
  return value;
}

function assert(condition, message) {
  if (!condition) throw new Error(message);
}

async function assertRefused(fn, ErrorClass, reason, what) {
  let result;
  try {
    result = await fn();
  } catch (error) {
    assert(
      error instanceof ErrorClass,
      `${what}: threw ${describeError(error)}, not a ${ErrorClass.name}`,
    );
    assert(error.reason === reason, `${what}: reason ${error.reason}, not ${reason}`);
    return;
  }
  throw new Error(`${what}: accepted (returned ${JSON.stringify(result)?.slice(0, 80)})`);
}

function assertSameEvent(actual, expected, what) {
  assert(actual !== null && typeof actual === "object", `${what}: not an object`);
  assert(
    JSON.stringify(actual) === JSON.stringify(expected),
    `${what}: got ${JSON.stringify(actual)?.slice(0, 200)}`,
  );
}

function header(headers, name) {
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() === name) return value;
  }
  return undefined;
}

function randomHex(bytes) {
  const buffer = crypto.getRandomValues(new Uint8Array(bytes));
  return Array.from(buffer, (b) => b.toString(16).padStart(2, "0")).join("");
}

function newSecret() {
  return `whsec_${randomHex(24)}`;
}

function statusChangedEvent() {
  const now = new Date().toISOString();
  return {
    id: `evt_${randomHex(12)}`,
    type: "retrieval_request.status_changed",
    created_at: now,
    data: { retrieval_request_id: `rr_${randomHex(12)}`, case_id: null, public_updated_at: now },
  };
}

async function hmacHex(secret, text) {
  const encoder = new TextEncoder();
  const key = await crypto.subtle.importKey(
    "raw",
    encoder.encode(secret),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const mac = await crypto.subtle.sign("HMAC", key, encoder.encode(text));
  return Array.from(new Uint8Array(mac), (b) => b.toString(16).padStart(2, "0")).join("");
}

function describeError(error) {
  if (error instanceof Error) {
    const name = error.constructor?.name ?? error.name;
    return `${name}: ${error.message}`.replace(/\s+/g, " ").slice(0, 400);
  }
  return String(error).slice(0, 400);
}
