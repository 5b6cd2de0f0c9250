/** Requestors: retrieval profiles, who at the firm deals with a provider. */
import { ListEnvelope } from "../schemas/common.js";
import {
  Requestor,
  RequestorCreate,
  RequestorListParams,
  RequestorUpdate,
} from "../schemas/requestors.js";
import { defineOperation } from "./operation.js";

export const RequestorList = ListEnvelope(Requestor);

export const create = defineOperation({
  operationId: "createRequestor",
  method: "POST",
  path: "/v2/requestors",
  summary: "Create a retrieval profile",
  tag: "Requestors",
  body: RequestorCreate,
  status: 201,
  response: Requestor,
  scope: "requestors:write",
} as const);

export const list = defineOperation({
  operationId: "listRequestors",
  method: "GET",
  path: "/v2/requestors",
  summary: "List retrieval profiles, newest first",
  tag: "Requestors",
  query: RequestorListParams,
  status: 200,
  response: RequestorList,
  list: true,
  scope: "requestors:read",
} as const);

export const retrieve = defineOperation({
  operationId: "getRequestor",
  method: "GET",
  path: "/v2/requestors/{id}",
  summary: "Read a retrieval profile",
  tag: "Requestors",
  status: 200,
  response: Requestor,
  scope: "requestors:read",
} as const);

export const update = defineOperation({
  operationId: "updateRequestor",
  method: "PATCH",
  path: "/v2/requestors/{id}",
  summary: "Update a retrieval profile",
  tag: "Requestors",
  description: "Only supplied fields change.",
  body: RequestorUpdate,
  status: 200,
  response: Requestor,
  scope: "requestors:write",
} as const);

/**
 * This module's operations keyed by operationId, in the order the OpenAPI
 * document lists them: `CONTRACT` (./index.ts) is these records in turn.
 */
export const operations = {
  createRequestor: create,
  listRequestors: list,
  getRequestor: retrieve,
  updateRequestor: update,
} as const;
