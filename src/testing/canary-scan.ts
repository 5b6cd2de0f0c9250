/**
 * Finding canaries (fictional-clients.ts) in what an application let out:
 * log lines, errors, requests to other origins than the API. Reports name the
 * canary's kind and show an excerpt with every canary value redacted, so the
 * report itself leaks nothing.
 */
import { MedRecordsError } from "../shared/errors.js";
import { type Canary, PHI_CANARIES } from "./fictional-clients.js";

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
  /** e.g. `logs[2]`, `errors[0].stack`, `requests[1] https://errors.example.test body`. */
  where: string;
  /** The canary's kind, e.g. `FICTIONAL_CLIENTS[0].client_name`. */
  kind: string;
  /** Up to 60 characters around the finding, every canary value replaced by `[canary]`. */
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
  for (const { value } of canaries) out = out.split(value).join("[canary]");
  return out;
}

/** Every canary in `text` (empty when none), with redacted excerpts. */
export function findCanaries(
  text: string,
  where: string,
  canaries: readonly Canary[] = PHI_CANARIES,
): CanaryFinding[] {
  const findings: CanaryFinding[] = [];
  for (const { kind, value } of canaries) {
    const index = text.indexOf(value);
    if (index === -1) continue;
    const start = Math.max(0, index - EXCERPT_CONTEXT);
    const end = Math.min(text.length, index + value.length + EXCERPT_CONTEXT);
    findings.push({ where, kind, excerpt: redact(text.slice(start, end), canaries) });
  }
  return findings;
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? "";
  } catch {
    return "";
  }
}

/** The texts an error shows: String(), message, stack, JSON, and those of its causes. */
function errorTexts(error: unknown, depth = 0): [string, string][] {
  if (error === null || error === undefined) return [];
  if (typeof error !== "object") return [["", String(error)]];
  const e = error as { message?: unknown; stack?: unknown; cause?: unknown };
  const texts: [string, string][] = [
    ["", String(error)],
    [".stack", typeof e.stack === "string" ? e.stack : ""],
    [".json", safeJson(error)],
  ];
  if (depth < 5 && e.cause !== undefined) {
    for (const [part, text] of errorTexts(e.cause, depth + 1)) texts.push([`.cause${part}`, text]);
  }
  return texts;
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
