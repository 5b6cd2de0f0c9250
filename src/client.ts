import type { ObserverLoader } from "./core/exchange-observer.js";
import type { ClientOptions } from "./core/options.js";
import { Core } from "./core/request.js";
import { checkCustodyOptions } from "./custody/options.js";
import { Cases } from "./resources/cases.js";
import { Documents } from "./resources/documents.js";
import { Events } from "./resources/events.js";
import { Facilities } from "./resources/facilities.js";
import { Requestors } from "./resources/requestors.js";
import { RetrievalRequests } from "./resources/retrieval-requests.js";
import { Webhooks } from "./resources/webhooks.js";

/** The fidelity tools, loaded only when `onDrift` or `record` is set: a client without them does no work per response. */
const loadObserver: ObserverLoader = (context) =>
  import("./fidelity/observer.js").then((module) => module.createObserver(context));

/**
 * The Medical Record Retrieval API v2 client.
 *
 * @example
 * const mr = new MedRecords({ apiKey: process.env.MEDRECORDS_API_KEY, baseUrl: "https://api.example.com" });
 * const created = await mr.cases.create({ title: "Doe v. Acme", client_name: "Jane Doe" });
 */
export class MedRecords {
  /** Legal matters, and uploading documents to them. */
  readonly cases: Cases;
  /** Case documents: list, read, archive, download. */
  readonly documents: Documents;
  /** Webhook endpoints, their tests and their delivery history. */
  readonly webhooks: Webhooks;
  /** The event log, and `catchUp()` to follow it after an outage. */
  readonly events: Events;
  /** Requests to obtain records from a provider, and answers to its action requests. */
  readonly retrievalRequests: RetrievalRequests;
  /** The directory of providers records can be requested from. */
  readonly facilities: Facilities;
  /** Retrieval profiles: who at the firm a provider deals with. */
  readonly requestors: Requestors;
  /** Holds the key; private so that logging the client never prints it. */
  readonly #core: Core;

  constructor(options: ClientOptions = {}) {
    this.#core = new Core(options, loadObserver);
    checkCustodyOptions(options);
    this.cases = new Cases(this.#core);
    this.documents = new Documents(this.#core);
    this.webhooks = new Webhooks(this.#core);
    this.events = new Events(this.#core);
    this.retrievalRequests = new RetrievalRequests(this.#core);
    this.facilities = new Facilities(this.#core);
    this.requestors = new Requestors(this.#core);
  }

  /** The base address requests go to. */
  get baseUrl(): string {
    return this.#core.baseUrl;
  }
}
