/** Cases: legal matters with client details. */
import { Case, CaseCreate, CaseListParams, CaseUpdate } from "../schemas/cases.js";
import { ListEnvelope } from "../schemas/common.js";
import { defineOperation } from "./operation.js";

export const CaseList = ListEnvelope(Case);

export const create = defineOperation({
  operationId: "createCase",
  method: "POST",
  path: "/v2/cases",
  summary: "Create a case",
  tag: "Cases",
  description: "`case_number` is generated; `status` defaults to active.",
  body: CaseCreate,
  status: 201,
  response: Case,
  scope: "cases:write",
} as const);

export const list = defineOperation({
  operationId: "listCases",
  method: "GET",
  path: "/v2/cases",
  summary: "List cases, newest first",
  tag: "Cases",
  query: CaseListParams,
  parameters: { external_id: "Only the cases whose `external_id` is exactly this." },
  status: 200,
  response: CaseList,
  list: true,
  scope: "cases:read",
} as const);

export const retrieve = defineOperation({
  operationId: "getCase",
  method: "GET",
  path: "/v2/cases/{case_id}",
  summary: "Read a case",
  tag: "Cases",
  status: 200,
  response: Case,
  scope: "cases:read",
} as const);

export const update = defineOperation({
  operationId: "updateCase",
  method: "PATCH",
  path: "/v2/cases/{case_id}",
  summary: "Update a case",
  tag: "Cases",
  description: "Only supplied fields change.",
  body: CaseUpdate,
  status: 200,
  response: Case,
  scope: "cases:write",
} as const);

/**
 * This module's operations keyed by operationId, in the order the OpenAPI
 * document lists them: `CONTRACT` (./index.ts) is these records in turn.
 */
export const operations = {
  createCase: create,
  listCases: list,
  getCase: retrieve,
  updateCase: update,
} as const;
