/** Every scope an API key can hold (spec, Authentication). */
export const SCOPES = [
  "cases:read",
  "cases:write",
  "documents:read",
  "documents:write",
  "retrievals:read",
  "retrievals:write",
  "requestors:read",
  "requestors:write",
  "webhooks:read",
  "webhooks:write",
] as const;
/** A permission of an API key, e.g. `cases:write`; an operation needs one or two. */
export type Scope = (typeof SCOPES)[number];
