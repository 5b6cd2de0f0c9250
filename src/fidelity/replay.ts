/**
 * `medrecords drift`: each recorded request sent again, in order, to a
 * reference server seeded with what the cassette saw, and every difference
 * between the recorded answer and the reference's reported (status, error
 * code, shape, pagination), with every way the recorded answer departs from
 * the spec. Ids and cursors the reference hands out in place of recorded
 * ones are mapped, so later requests name the reference's objects. The
 * reference server is a port: this layer does not import the mock.
 */
import type { Operation } from "../contract/operation.js";
import type { Cassette, CassetteEntry } from "./cassette-format.js";
import { operationOf } from "./cassette-scrub.js";
import { type DriftKind, jsonType, pointerToken, type ShapeDrift } from "./drift.js";
import { listedCodes, responseShapeDrifts } from "./response-drift.js";

/** The reference server a cassette is replayed against. */
export interface ReplayTarget {
  readonly baseUrl: string;
  /** A key with every scope. */
  readonly apiKey: string;
  fetch(request: Request): Promise<Response>;
}

/** One drift of a replayed exchange: as `onDrift` reports it, with the exchange's number (1-based). */
export interface ReportedDrift {
  exchange: number;
  operation: string;
  kind: DriftKind;
  pointer: string;
  expected: string;
  got: string;
}

/** What `medrecords drift --json` prints. */
export interface DriftReport {
  /** How many exchanges the cassette holds (each replayed). */
  exchanges: number;
  drifts: ReportedDrift[];
}

interface Answer {
  readonly status: number;
  readonly body: unknown;
}

export async function replayCassette(
  cassette: Cassette,
  target: ReplayTarget,
): Promise<DriftReport> {
  const replayer = new Replayer(target);
  const drifts: ReportedDrift[] = [];
  for (const [index, entry] of cassette.entries.entries()) {
    for (const drift of await replayer.replay(entry)) {
      drifts.push({ exchange: index + 1, operation: entry.operation, ...drift });
    }
  }
  return { exchanges: cassette.entries.length, drifts };
}

class Replayer {
  readonly #target: ReplayTarget;
  /** Recorded id or cursor → the reference's. */
  readonly #ids = new Map<string, string>();

  constructor(target: ReplayTarget) {
    this.#target = target;
  }

  async replay(entry: CassetteEntry): Promise<ShapeDrift[]> {
    const op = operationOf(entry.operation);
    const recorded: Answer = { status: entry.response.status, body: entry.response.body };
    if (op === undefined) {
      return [
        {
          pointer: "",
          kind: "unexpected_status",
          expected: "an operation of the spec",
          got: "unknown operation",
        },
      ];
    }
    const found = responseShapeDrifts(op, { ...recorded, requestId: undefined });
    const reference = await this.#send(op, entry);
    await this.#upload(entry, reference);
    const differences = compareAnswers(op, recorded, reference);
    this.#learn(op, recorded, reference);
    const seen = new Set(found.map((d) => `${d.kind} ${d.pointer}`));
    return [...found, ...differences.filter((d) => !seen.has(`${d.kind} ${d.pointer}`))];
  }

  /** The recorded request, ids mapped, as the reference server answers it. */
  async #send(op: Operation, entry: CassetteEntry): Promise<Answer> {
    const path = op.path.replace(/\{(\w+)\}/g, (_, name: string) =>
      encodeURIComponent(this.#map(entry.params[name] ?? "") as string),
    );
    const query = new URLSearchParams(this.#map(entry.query) as Record<string, string>).toString();
    const hasBody = "body" in entry.request;
    const response = await this.#target.fetch(
      new Request(`${this.#target.baseUrl}${path}${query ? `?${query}` : ""}`, {
        method: op.method,
        headers: {
          accept: "application/json",
          authorization: `Bearer ${this.#target.apiKey}`,
          ...(hasBody ? { "content-type": "application/json" } : {}),
        },
        ...(hasBody ? { body: JSON.stringify(this.#map(entry.request.body)) } : {}),
      }),
    );
    const text = await response.text();
    return {
      status: response.status,
      body: text === "" ? undefined : (JSON.parse(text) as unknown),
    };
  }

  /**
   * After a signed upload, the bytes the recording never holds (a PUT to a
   * presigned address is not an API exchange): placeholder bytes of the
   * signed type, so the document created next is created on the reference too.
   */
  async #upload(entry: CassetteEntry, reference: Answer): Promise<void> {
    const url = (reference.body as { upload_url?: unknown } | undefined)?.upload_url;
    if (!isSuccess(reference.status) || typeof url !== "string") return;
    const type = (entry.request.body as { file_type?: unknown } | undefined)?.file_type;
    const bytes = new TextEncoder().encode("%PDF-1.4\n");
    const headers = {
      "content-length": String(bytes.byteLength),
      ...(typeof type === "string" ? { "content-type": type } : {}),
    };
    const answer = await this.#target.fetch(
      new Request(url, { method: "PUT", headers, body: bytes }),
    );
    await answer.body?.cancel();
  }

  /** `value` with every recorded id or cursor the reference renamed replaced by the reference's. */
  #map(value: unknown): unknown {
    if (typeof value === "string") return this.#ids.get(value) ?? value;
    if (Array.isArray(value)) return value.map((item) => this.#map(item));
    if (typeof value === "object" && value !== null) {
      return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, this.#map(item)]));
    }
    return value;
  }

  /** Learns the ids a create handed out, and the cursor of each next page. */
  #learn(op: Operation, recorded: Answer, reference: Answer): void {
    if (!isSuccess(recorded.status) || !isSuccess(reference.status)) return;
    if (op.method === "POST") this.#learnIds(recorded.body, reference.body);
    if (op.list) {
      const cursor = (body: unknown) => cursorOf((body as { next?: unknown } | undefined)?.next);
      const [from, to] = [cursor(recorded.body), cursor(reference.body)];
      if (from !== undefined && to !== undefined && from !== to) this.#ids.set(from, to);
    }
  }

  #learnIds(recorded: unknown, reference: unknown): void {
    if (
      jsonType(recorded) !== jsonType(reference) ||
      typeof recorded !== "object" ||
      recorded === null
    ) {
      return;
    }
    const other = reference as Record<string, unknown>;
    for (const [key, value] of Object.entries(recorded)) {
      const theirs = other[key];
      const isId = key === "id" || key.endsWith("_id");
      if (isId && typeof value === "string" && typeof theirs === "string" && value !== theirs) {
        this.#ids.set(value, theirs);
      } else this.#learnIds(value, theirs);
    }
  }
}

const isSuccess = (status: number) => status >= 200 && status < 300;

function cursorOf(link: unknown): string | undefined {
  if (typeof link !== "string" || !URL.canParse(link)) return undefined;
  return new URL(link).searchParams.get("cursor") ?? undefined;
}

/** How the recorded answer differs from the reference's: status, error code, shape, pagination. */
export function compareAnswers(op: Operation, recorded: Answer, reference: Answer): ShapeDrift[] {
  if (recorded.status !== reference.status) {
    return [
      {
        pointer: "",
        kind: "different_status",
        expected: String(reference.status),
        got: String(recorded.status),
      },
    ];
  }
  if (recorded.status >= 400) {
    const code = (body: unknown) =>
      (body as { error?: { code?: unknown } } | undefined)?.error?.code;
    const [theirs, ours] = [code(reference.body), code(recorded.body)];
    if (theirs === ours) return [];
    // A code the spec lists is its vocabulary, not data: named; any other is only a string.
    const listed = listedCodes(op, recorded.status);
    return [
      {
        pointer: "/error/code",
        kind: "different_error_code",
        expected: typeof theirs === "string" ? theirs : jsonType(theirs),
        got: typeof ours === "string" && listed.includes(ours) ? ours : jsonType(ours),
      },
    ];
  }
  const out = compareShapes(recorded.body, reference.body, "", []);
  if (op.list) out.push(...comparePages(recorded.body, reference.body));
  return out;
}

/** Fields one answer has and the other has not, and values of another JSON type (null matches any). */
function compareShapes(
  recorded: unknown,
  reference: unknown,
  at: string,
  out: ShapeDrift[],
): ShapeDrift[] {
  const [ours, theirs] = [jsonType(recorded), jsonType(reference)];
  if (ours === "null" || theirs === "null" || ours === "missing" || theirs === "missing")
    return out;
  if (ours !== theirs) {
    out.push({ pointer: at, kind: "wrong_type", expected: theirs, got: ours });
    return out;
  }
  if (ours === "array") {
    const [a, b] = [recorded as unknown[], reference as unknown[]];
    for (let i = 0; i < Math.min(a.length, b.length); i++)
      compareShapes(a[i], b[i], `${at}/${i}`, out);
    return out;
  }
  if (ours !== "object") return out;
  const [a, b] = [recorded as Record<string, unknown>, reference as Record<string, unknown>];
  for (const key of Object.keys(a)) {
    const pointer = `${at}/${pointerToken(key)}`;
    if (!Object.hasOwn(b, key))
      out.push({ pointer, kind: "unknown_field", expected: "absent", got: jsonType(a[key]) });
    else compareShapes(a[key], b[key], pointer, out);
  }
  for (const key of Object.keys(b)) {
    if (!Object.hasOwn(a, key)) {
      out.push({
        pointer: `${at}/${pointerToken(key)}`,
        kind: "missing_field",
        expected: jsonType(b[key]),
        got: "missing",
      });
    }
  }
  return out;
}

/** A page of another length, or a `next`/`previous` link where the reference has none (or the reverse). */
function comparePages(recorded: unknown, reference: unknown): ShapeDrift[] {
  const page = (body: unknown) =>
    (body ?? {}) as { results?: unknown; next?: unknown; previous?: unknown };
  const [a, b] = [page(recorded), page(reference)];
  const out: ShapeDrift[] = [];
  const count = (results: unknown) => (Array.isArray(results) ? results.length : 0);
  if (count(a.results) !== count(b.results)) {
    out.push({
      pointer: "/results",
      kind: "different_pagination",
      expected: `${count(b.results)} results`,
      got: `${count(a.results)} results`,
    });
  }
  for (const link of ["next", "previous"] as const) {
    if ((a[link] === null) !== (b[link] === null)) {
      out.push({
        pointer: `/${link}`,
        kind: "different_pagination",
        expected: jsonType(b[link]),
        got: jsonType(a[link]),
      });
    }
  }
  return out;
}
