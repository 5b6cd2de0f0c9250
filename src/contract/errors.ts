/** Error descriptions shared by several operations. */

export const uploadErrors =
  "`validation_error`, or an upload_id problem: `upload_not_found`, `upload_expired` (not used within one hour of signing), `upload_consumed` (already used) or `upload_incomplete` (no bytes were PUT).";

export const webhookBodyErrors =
  "`invalid_request` when a value is over its length limit or the URL is not publicly reachable; `validation_error` for any other problem.";
