/** Error descriptions shared by operations of several resources. */

export const uploadErrors =
  "`validation_error`, or an upload_id problem: `upload_not_found`, `upload_expired` (not used within one hour of signing), `upload_consumed` (already used) or `upload_incomplete` (no bytes were PUT).";
