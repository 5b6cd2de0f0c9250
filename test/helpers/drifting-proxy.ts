/**
 * A deliberately drifted service for the fidelity tests: the reference
 * server over HTTP behind a proxy that bends its answers away from the spec,
 * one drift of each kind, each at a known place.
 */
import { createServer, type Server } from "node:http";
import { closeServer, listenOn } from "./loopback.js";

/** What the proxy changes, and where each drift lands. */
export const DRIFTS = {
  /** GET /v2/cases/{id}: a field the spec does not have. */
  unknownField: { operation: "getCase", pointer: "/risk_score", kind: "unknown_field" },
  /** GET /v2/cases/{id}: a case_category the spec does not list. */
  unknownEnum: { operation: "getCase", pointer: "/case_category", kind: "unknown_enum_value" },
  /** GET /v2/cases/{id}: case_number (always present) dropped. */
  missingField: { operation: "getCase", pointer: "/case_number", kind: "missing_field" },
  /** GET /v2/cases/{id}: updated_at as a number. */
  wrongType: { operation: "getCase", pointer: "/updated_at", kind: "wrong_type" },
  /** GET /v2/cases: an unknown field on the first case of a page. */
  unknownFieldInList: {
    operation: "listCases",
    pointer: "/results/0/risk_score",
    kind: "unknown_field",
  },
  /** A 404 with an error code the spec does not list. */
  unknownErrorCode: { operation: "getCase", pointer: "/error/code", kind: "unknown_error_code" },
  /** POST /v2/cases answered 200 instead of 201. */
  unexpectedStatus: { operation: "createCase", pointer: "", kind: "unexpected_status" },
} as const;

type Json = Record<string, unknown>;

function bend(
  method: string,
  path: string,
  status: number,
  body: Json,
): { status: number; body: Json } {
  if (method === "POST" && path === "/v2/cases" && status === 201) return { status: 200, body };
  if (method === "GET" && path === "/v2/cases" && status === 200) {
    const [first] = body.results as Json[];
    if (first) first.risk_score = 3;
    return { status, body };
  }
  if (method === "GET" && /^\/v2\/cases\/[^/]+$/.test(path)) {
    if (status === 404)
      return { status, body: { error: { ...(body.error as Json), code: "case_gone" } } };
    const { case_number: _dropped, ...rest } = body;
    return {
      status,
      body: { ...rest, risk_score: 3, case_category: "maritime", updated_at: 1_767_225_600 },
    };
  }
  return { status, body };
}

export interface DriftingProxy {
  readonly url: string;
  close(): Promise<void>;
}

/** A proxy on loopback in front of `upstream` (a reference server's base URL). */
export async function startDriftingProxy(upstream: string): Promise<DriftingProxy> {
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) {
      if (typeof value === "string" && name !== "host" && name !== "connection")
        headers.set(name, value);
    }
    const answer = await fetch(`${upstream}${req.url}`, {
      method: req.method,
      headers,
      body: chunks.length > 0 ? Buffer.concat(chunks) : undefined,
    });
    const text = await answer.text();
    const path = new URL(req.url ?? "/", upstream).pathname;
    const bent =
      text === ""
        ? { status: answer.status, body: undefined }
        : bend(req.method ?? "GET", path, answer.status, JSON.parse(text) as Json);
    const out = bent.body === undefined ? "" : JSON.stringify(bent.body);
    const requestId = answer.headers.get("x-request-id");
    res.writeHead(bent.status, {
      "content-type": "application/json",
      ...(requestId ? { "x-request-id": requestId } : {}),
    });
    res.end(out);
  });
  const port = await listenOn(server);
  return { url: `http://127.0.0.1:${port}`, close: () => closeServer(server) };
}
