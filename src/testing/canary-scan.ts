/**
 * Finding canaries (fictional-clients.ts) in what an application let out:
 * log lines, errors, requests to other origins than the API. A canary is
 * found whatever its case, and in the forms a log or a request commonly
 * encodes it in (canary-views.ts: percent and form encoding, JSON escapes,
 * base64, gzip). Errors are searched as Node prints them (`util.inspect`:
 * own properties, causes, `AggregateError.errors`). Reports name the
 * canary's kind and show an excerpt with every canary value redacted, so the
 * report itself leaks nothing.
 */
import { MedRecordsError } from "../shared/errors.js";
import { decodedViews } from "./canary-views.js";
import { type Canary, PHI_CANARIES } from "./fictional-clients.js";
import { inspectValue } from "./inspect.js";

/** A request the application sent elsewhere than the API, as `captureLeaks` records it. */
export interface CapturedRequest {
  /** The HTTP method, upper case. */
  method: string;
  /** The absolute address the request went to. */
  url: string;
  /** Its headers, names lower case. */
  headers: Record<string, string>;
  /** The body as text; empty when none. */
  body: string;
}

/** What `assertNoCanaryLeak` looks through; a `LeakCapture` is one. */
export interface LeakSources {
  /** Log lines, as printed. */
  readonly logs?: readonly string[];
  /** Errors (or anything thrown): message, stack, String(), JSON and causes are searched. */
  readonly errors?: readonly unknown[];
  /** Requests to other origins than the API: URL, headers and body are searched. */
  readonly requests?: readonly CapturedRequest[];
}

/** One canary found: where, which, and a redacted excerpt. */
export interface CanaryFinding {
  /**
   * e.g. `logs[2]`, `errors[0].stack`, `requests[1] https://errors.example.test body`;
   * followed by how it was encoded when it was found decoded, e.g. `logs[0] (base64+gzip)`.
   */
  where: string;
  /** The canary's kind, e.g. `FICTIONAL_CLIENTS[0].client_name`. */
  kind: string;
  /**
   * Up to 60 characters around the finding (in the decoded text when it was
   * found decoded), every canary value replaced by `[canary]`.
   */
  excerpt: string;
}

/** Thrown by `assertNoCanaryLeak`; `findings` say where (never the values). */
export class PhiLeakError extends MedRecordsError {
  override name = "PhiLeakError";
  /** Every canary found. */
  readonly findings: readonly CanaryFinding[];
  constructor(findings: readonly CanaryFinding[]) {
    super(
      `${findings.length} PHI canary value(s) left the application:\n${findings
        .map((f) => `  ${f.where}: ${f.kind} in "${f.excerpt}"`)
        .join("\n")}`,
    );
    this.findings = findings;
  }
}

const EXCERPT_CONTEXT = 30;

function redact(text: string, canaries: readonly Canary[]): string {
  let out = text;
  for (const { value } of canaries) out = replaceFolded(out, value, "[canary]");
  return out;
}

/** Case-folded form used for matching: a canary upper-cased by a logger still matches. */
function fold(text: string): string {
  return text.toLowerCase();
}

function replaceFolded(text: string, value: string, by: string): string {
  const needle = fold(value);
  if (needle === "") return text;
  let folded = fold(text);
  // Lower-casing keeps the length of the ASCII canaries; otherwise fall back to an exact replace.
  if (folded.length !== text.length) return text.split(value).join(by);
  let out = text;
  for (let i = folded.indexOf(needle); i !== -1; i = folded.indexOf(needle, i + by.length)) {
    out = out.slice(0, i) + by + out.slice(i + value.length);
    folded = folded.slice(0, i) + by + folded.slice(i + value.length);
  }
  return out;
}

/** Where `value` is in `text`, case-folded; -1 when absent. */
function indexFolded(text: string, value: string): number {
  const index = fold(text).indexOf(fold(value));
  // A length-changing fold would misplace the excerpt: use the exact position then.
  return index === -1 || fold(text).length === text.length ? index : text.indexOf(value);
}

/**
 * Every canary in `text` (empty when none), with redacted excerpts. Found
 * whatever its case, and in the decoded forms of `text` (percent and form
 * encoding, `\uXXXX` escapes, base64, gzip), each canary once.
 */
export function findCanaries(
  text: string,
  where: string,
  canaries: readonly Canary[] = PHI_CANARIES,
): CanaryFinding[] {
  const findings: CanaryFinding[] = [];
  const missing = new Set(canaries);
  const look = (view: string, at: string) => {
    for (const canary of [...missing]) {
      const index = indexFolded(view, canary.value);
      if (index === -1) continue;
      missing.delete(canary);
      const start = Math.max(0, index - EXCERPT_CONTEXT);
      const end = Math.min(view.length, index + canary.value.length + EXCERPT_CONTEXT);
      findings.push({
        where: at,
        kind: canary.kind,
        excerpt: redact(view.slice(start, end), canaries),
      });
    }
  };
  look(text, where);
  if (missing.size > 0) {
    for (const view of decodedViews(text)) {
      look(view.text, `${where} (${view.how})`);
      if (missing.size === 0) break;
    }
  }
  // In the canaries' order, as a reader expects.
  return findings.sort((a, b) => order(canaries, a.kind) - order(canaries, b.kind));
}

function order(canaries: readonly Canary[], kind: string): number {
  return canaries.findIndex((c) => c.kind === kind);
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? "";
  } catch {
    return "";
  }
}

/**
 * The texts an error shows: String(), message, stack, JSON, as Node prints it
 * (own properties, `cause`, `AggregateError.errors`), and those of its causes
 * and aggregated errors.
 */
function errorTexts(error: unknown, depth = 0): [string, string][] {
  if (error === null || error === undefined) return [];
  if (typeof error !== "object") return [["", String(error)]];
  const e = error as { message?: unknown; stack?: unknown; cause?: unknown; errors?: unknown };
  const texts: [string, string][] = [
    ["", safeString(error)],
    [".stack", typeof e.stack === "string" ? e.stack : ""],
    [".json", safeJson(error)],
  ];
  if (depth < 5 && e.cause !== undefined) {
    for (const [part, text] of errorTexts(e.cause, depth + 1)) texts.push([`.cause${part}`, text]);
  }
  if (depth < 5 && Array.isArray(e.errors)) {
    e.errors.slice(0, 100).forEach((inner: unknown, i: number) => {
      for (const [part, text] of errorTexts(inner, depth + 1)) {
        texts.push([`.errors[${i}]${part}`, text]);
      }
    });
  }
  // Last, so that a value found in a part above is reported there: it covers them all.
  if (depth === 0) texts.push([".inspect", inspectValue(error)]);
  return texts;
}

function safeString(value: unknown): string {
  try {
    return String(value);
  } catch {
    return "";
  }
}

/** Every canary in the sources. */
export function scanForCanaries(
  sources: LeakSources,
  canaries: readonly Canary[] = PHI_CANARIES,
): CanaryFinding[] {
  const findings: CanaryFinding[] = [];
  (sources.logs ?? []).forEach((line, i) => {
    findings.push(...findCanaries(line, `logs[${i}]`, canaries));
  });
  (sources.errors ?? []).forEach((error, i) => {
    const seen = new Set<string>();
    for (const [part, text] of errorTexts(error)) {
      for (const finding of findCanaries(text, `errors[${i}]${part}`, canaries)) {
        if (seen.has(finding.kind)) continue;
        seen.add(finding.kind);
        findings.push(finding);
      }
    }
  });
  (sources.requests ?? []).forEach((request, i) => {
    const where = `requests[${i}] ${request.method} ${safeOrigin(request.url)}`;
    findings.push(...findCanaries(request.url, `${where} url`, canaries));
    findings.push(...findCanaries(safeJson(request.headers), `${where} headers`, canaries));
    findings.push(...findCanaries(request.body, `${where} body`, canaries));
  });
  return findings;
}

function safeOrigin(url: string): string {
  return URL.canParse(url) ? new URL(url).origin : "(relative URL)";
}

/**
 * Throws a {@link PhiLeakError} when any canary (by default every value of
 * `FICTIONAL_CLIENTS`) appears in the logs, errors or requests given.
 * @example assertNoCanaryLeak(capture) // capture = captureLeaks()
 */
export function assertNoCanaryLeak(
  sources: LeakSources,
  canaries: readonly Canary[] = PHI_CANARIES,
): void {
  const findings = scanForCanaries(sources, canaries);
  if (findings.length > 0) throw new PhiLeakError(findings);
}
