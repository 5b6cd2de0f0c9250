import * as requestors from "../contract/requestors.js";
import type { APIPromise } from "../core/api-promise.js";
import type { RequestOptions } from "../core/options.js";
import { type PagePromise, paginate } from "../core/pagination.js";
import { APIResource } from "../core/resource.js";
import type {
  Requestor,
  RequestorCreate,
  RequestorListParams,
  RequestorUpdate,
} from "../schemas/requestors.js";

/** The organization's retrieval profiles: who requests records, as a provider sees it. */
export class Requestors extends APIResource {
  /** Creates a retrieval profile (requestors:write). */
  create(
    body: RequestorCreate,
    options?: RequestOptions,
  ): APIPromise<Requestor, "createRequestor"> {
    return this.core.call(requestors.create, { body }, options);
  }

  /** One retrieval profile by id; a `NotFoundError` when there is none. */
  retrieve(requestorId: string, options?: RequestOptions): APIPromise<Requestor, "getRequestor"> {
    return this.core.call(requestors.retrieve, { params: { id: requestorId } }, options);
  }

  /** Changes only the supplied fields; null clears `organization` or `phone`. */
  update(
    requestorId: string,
    body: RequestorUpdate,
    options?: RequestOptions,
  ): APIPromise<Requestor, "updateRequestor"> {
    return this.core.call(requestors.update, { params: { id: requestorId }, body }, options);
  }

  /** Every retrieval profile, newest first: await for a page or `for await` over every one. */
  list(
    query: RequestorListParams = {},
    options?: RequestOptions,
  ): PagePromise<Requestor, "listRequestors"> {
    return paginate(this.core, requestors.list, { query }, options);
  }
}
