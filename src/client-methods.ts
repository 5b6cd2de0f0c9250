/**
 * Which client method calls each operation of the contract. Typed over the
 * contract's keys: an operation without a method here fails `tsc`, naming
 * it ("Property 'getCase' is missing ..."), and a row naming a method that
 * does not exist, or whose parameters do not start with the operation's
 * path ids (in template order) and then its body, fails too. Nothing in the
 * package imports it at runtime; the tests call every operation through it.
 */
import type { z } from "zod";
import type { MedRecords } from "./client.js";
import type { Contract } from "./contract/index.js";
import type { Operation } from "./contract/operation.js";

/** The names of the client's resources: `"cases" | "documents" | ...`. */
export type ResourceName = {
  [K in keyof MedRecords]: MedRecords[K] extends object ? K : never;
}[keyof MedRecords];

/** `"resource.method"` for every method of every resource. */
type MethodPath = {
  [R in ResourceName]: {
    [M in keyof MedRecords[R] & string]: MedRecords[R][M] extends (...args: never[]) => unknown
      ? `${R}.${M}`
      : never;
  }[keyof MedRecords[R] & string];
}[ResourceName];

/** The path template's ids as a tuple of strings, in order. */
type PathArgs<P extends string> = P extends `${string}{${string}}${infer Rest}`
  ? [string, ...PathArgs<Rest>]
  : [];

/** What a method of an operation takes first: its path ids, then its body (when it has one). */
export type LeadingArgs<O extends Operation> = O extends {
  readonly body: infer B extends z.ZodType;
}
  ? [...PathArgs<O["path"]>, z.input<B>]
  : PathArgs<O["path"]>;

type MethodAt<P extends MethodPath> = P extends `${infer R extends ResourceName}.${infer M}`
  ? M extends keyof MedRecords[R]
    ? MedRecords[R][M]
    : never
  : never;

/** The methods whose parameters fit operation `O`. */
type MethodFor<O extends Operation> = {
  [P in MethodPath]: MethodAt<P> extends (...args: [...LeadingArgs<O>, ...never[]]) => unknown
    ? P
    : never;
}[MethodPath];

/** For each operation of a contract, a client method that fits it. */
export type ClientMethodsOf<C extends { readonly [id: string]: Operation }> = {
  readonly [K in keyof C]: MethodFor<C[K]>;
};

/** Each operation of the contract and the client method that calls it. */
export const CLIENT_METHODS = {
  createCase: "cases.create",
  listCases: "cases.list",
  getCase: "cases.retrieve",
  updateCase: "cases.update",
  signCaseUpload: "cases.signUpload",
  signRetrievalUpload: "retrievalRequests.signUpload",
  createDocument: "cases.createDocument",
  listDocuments: "documents.list",
  getDocument: "documents.retrieve",
  updateDocument: "documents.update",
  downloadDocument: "documents.download",
  createWebhook: "webhooks.create",
  listWebhooks: "webhooks.list",
  getWebhook: "webhooks.retrieve",
  updateWebhook: "webhooks.update",
  deleteWebhook: "webhooks.delete",
  testWebhook: "webhooks.test",
  listWebhookDeliveries: "webhooks.listDeliveries",
  redeliverWebhookDelivery: "webhooks.redeliver",
  createRetrievalRequest: "retrievalRequests.create",
  listRetrievalRequests: "retrievalRequests.list",
  getRetrievalRequest: "retrievalRequests.retrieve",
  listRetrievalDocuments: "retrievalRequests.listDocuments",
  downloadRetrievalDocument: "retrievalRequests.downloadDocument",
  respondToActionRequest: "retrievalRequests.respondToAction",
  searchFacilities: "facilities.search",
  createRequestor: "requestors.create",
  listRequestors: "requestors.list",
  getRequestor: "requestors.retrieve",
  updateRequestor: "requestors.update",
  listEvents: "events.list",
  getEvent: "events.retrieve",
} as const satisfies ClientMethodsOf<Contract>;
