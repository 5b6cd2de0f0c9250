/**
 * `medrecords trigger <event type>`: makes a running mock emit an event, by
 * performing the provider-side change behind it through the control API
 * (`/__mock/...`), as `stripe trigger` does for Stripe's test mode. With no
 * `--retrieval-request`, it first creates one through the API (a fictional
 * case, facility and requestor, and a placeholder authorization PDF).
 */

import { MedRecords } from "../client.js";
import { test as testWebhook } from "../contract/webhooks.js";
import { pathParamProblem } from "../core/path-param.js";
import { MOCK_FACILITIES } from "../mock/model/facilities.js";
import { DELIVERY_ONLY_EVENT_TYPES, EVENT_LOG_TYPES } from "../schemas/event-list.js";
import { SUBSCRIBABLE_EVENT_TYPES, type SubscribableEventType } from "../schemas/events.js";
import { parseFlags, shown } from "./args.js";
import { commandLogger } from "./client-logger.js";
import { closestName } from "./closest.js";
import { abortableFetch, commandFetch } from "./command-fetch.js";
import { messageOf, oneLine } from "./error-text.js";
import { isHttpUrl } from "./http-url.js";
import { CommandError, type CommandIo, UsageError } from "./usage-error.js";

const SEE_HELP = "see medrecords trigger --help";

/** The provider-side change behind each event, as the control API makes it. */
const CHANGES: Record<
  SubscribableEventType,
  { describe: string; path: string; body: Record<string, unknown> }
> = {
  "retrieval_request.status_changed": {
    describe: "moved it to status processing, stage provider_processing",
    path: "status",
    body: { status: "processing", stage: "provider_processing" },
  },
  "retrieval_request.action_required": {
    describe: "opened an action request (additional_information_needed)",
    path: "action-requests",
    body: {
      reason: "additional_information_needed",
      message: "Please confirm the dates of treatment (sent by medrecords trigger).",
    },
  },
  "retrieval_request.documents_available": {
    describe: "released a record file (records.pdf)",
    path: "records",
    body: {
      files: [
        {
          file_name: "records.pdf",
          file_type: "application/pdf",
          content: "%PDF-1.4\n% fictional records released by medrecords trigger\n%%EOF\n",
        },
      ],
    },
  },
};

export const TRIGGER_HELP = `Usage: medrecords trigger <event type> [options]

Makes a running reference server (\`medrecords mock\`) emit an event: performs
the provider-side change behind it through the mock's control API, and
prints what it did. The event is logged and delivered like any other: see it
with \`medrecords listen\` or \`medrecords events tail\`.

Event types (the part after "retrieval_request." is enough: documents_available):
  retrieval_request.status_changed        moves the request to processing /
                                          provider_processing
  retrieval_request.action_required       opens an action request (fails while
                                          one is open: answer it first)
  retrieval_request.documents_available   releases a record file

Options:
  --retrieval-request <id>   the retrieval request to change; default: a new
                             one, created through the API first
  --mock-url <url>           the mock's address (default: $MEDRECORDS_BASE_URL)
  -h, --help                 show this help

It mints its own key through the control API: no MEDRECORDS_API_KEY needed.
Exit status: 0 done; 1 the mock refused the change or cannot be reached; 2 a
usage mistake (an unknown event type, a bad flag).
`;

export async function triggerCommand(
  argv: string[],
  io: CommandIo,
  deps: { fetch?: typeof fetch } = {},
): Promise<number> {
  const [first, ...rest] = argv;
  if (first === "--help" || first === "-h") {
    io.stdout(TRIGGER_HELP);
    return 0;
  }
  const flags = parseFlags(
    first === undefined || first.startsWith("-") ? argv : rest,
    {
      "retrieval-request": { type: "string" },
      "mock-url": { type: "string" },
      help: { type: "boolean", short: "h" },
    },
    "trigger",
    io.env,
  );
  if (flags.help) {
    io.stdout(TRIGGER_HELP);
    return 0;
  }
  if (first === undefined || first.startsWith("-")) {
    throw new UsageError(`which event? name an event type; ${SEE_HELP}`);
  }
  const type = eventType(first, io.env);
  const given = flags["retrieval-request"];
  // The client's own rule for ids: "." or ".." would reach another control path.
  const problem = given === undefined ? undefined : pathParamProblem(given);
  if (problem !== undefined) {
    throw new UsageError(`--retrieval-request: ${problem}, such as ret_...; ${SEE_HELP}`);
  }
  const mockUrl = (flags["mock-url"] ?? io.env.MEDRECORDS_BASE_URL)?.replace(/\/+$/, "");
  if (mockUrl === undefined || mockUrl === "" || !isHttpUrl(mockUrl)) {
    throw new UsageError(
      `no mock address: pass --mock-url or set MEDRECORDS_BASE_URL to the address medrecords mock printed; ${SEE_HELP}`,
    );
  }
  const send = abortableFetch(commandFetch(deps.fetch, mockUrl), io.signal);
  const control = async (method: string, path: string, body?: unknown) => {
    let response: Response;
    try {
      response = await send(`${mockUrl}/__mock${path}`, {
        method,
        headers: { "content-type": "application/json" },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    } catch (error) {
      throw new CommandError(`cannot reach the mock at ${mockUrl}: ${oneLine(messageOf(error))}`);
    }
    const answer = (await response.json().catch(() => ({}))) as Record<string, unknown>;
    if (!response.ok) {
      const error = answer.error as { message?: string } | undefined;
      throw new CommandError(
        response.status === 404 && path === "/api-keys"
          ? `${mockUrl} is not a medrecords mock (no control API under /__mock)`
          : `the mock refused: ${oneLine(error?.message ?? `HTTP ${response.status}`)}`,
      );
    }
    return answer;
  };

  // Its own key, with every scope: the mock is the only service this command talks to.
  const apiKey = String((await control("POST", "/api-keys", {})).api_key);
  let id = flags["retrieval-request"];
  if (id === undefined) {
    id = await createRetrievalRequest(
      new MedRecords({ apiKey, baseUrl: mockUrl, fetch: send, logger: commandLogger(io) }),
    );
    await io.stdout(`Created retrieval request ${id} through the API.\n`);
  }
  const change = CHANGES[type];
  await control(
    "POST",
    `/retrieval-requests/${encodeURIComponent(id)}/${change.path}`,
    change.body,
  );
  await io.stdout(`Retrieval request ${id}: ${change.describe}; the mock emitted ${type}.\n`);
  return 0;
}

function eventType(value: string, env: CommandIo["env"]): SubscribableEventType {
  const known: readonly string[] = SUBSCRIBABLE_EVENT_TYPES;
  if (known.includes(value)) return value as SubscribableEventType;
  // The part after the prefix (documents_available), when it names one type only.
  const unprefixed = known.filter((type) => type.slice(type.indexOf(".") + 1) === value);
  if (unprefixed.length === 1) return unprefixed[0] as SubscribableEventType;
  if ([...EVENT_LOG_TYPES, ...DELIVERY_ONLY_EVENT_TYPES].includes(value)) {
    throw new UsageError(
      `${value} is not a provider-side change: the service emits it for a webhook (webhook.test: ${testWebhook.method} ${testWebhook.path}); trigger takes ${known.join(", ")}`,
    );
  }
  const closest = closestName(value, known);
  throw new UsageError(
    `unknown event type ${shown(value, env)}${closest === undefined ? ";" : `; did you mean ${closest}?`} trigger takes ${known.join(", ")} (or the part after retrieval_request.); ${SEE_HELP}`,
  );
}

async function createRetrievalRequest(mr: MedRecords): Promise<string> {
  try {
    const auth_form = await mr.retrievalRequests.uploadFile({
      file: new TextEncoder().encode("%PDF-1.4\n% fictional signed authorization\n%%EOF\n"),
      file_name: "authorization.pdf",
      file_type: "application/pdf",
    });
    const { id } = await mr.retrievalRequests.create({
      case: { title: "Example v. Trigger (fictional)", client_name: "Sam Trigger-Example" },
      facility_id: (MOCK_FACILITIES[0] as { id: string }).id,
      requestor: { name: "Trigger Paralegal", email: "paralegal@firm.example" },
      auth_form,
    });
    return id;
  } catch (error) {
    throw new CommandError(
      `cannot create a retrieval request on the mock: ${oneLine(messageOf(error))}`,
    );
  }
}
