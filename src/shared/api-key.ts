/**
 * The prefix of every API key (spec, Authentication): the reference server
 * hands out keys with it, and the OpenAPI document shows it.
 */
export const API_KEY_PREFIX = "medrecords_sk_live_";
