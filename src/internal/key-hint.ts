/**
 * The API key's redacted identity, for records that name who acted (the
 * custody log's `actor`): the key's prefix and its last four characters, as
 * the service shows a webhook secret (`secret_hint`), e.g.
 * `medrecords_sk_live_...Xy12`. Never more: a secret part under 16 characters
 * shows none of it, so a short test key is not given away.
 */
export function keyHint(key: string): string {
  const match = /^(.*_sk_[a-z]+_)(.*)$/.exec(key);
  const prefix = match?.[1] ?? "";
  const secret = match?.[2] ?? key;
  return secret.length >= 16 ? `${prefix}...${secret.slice(-4)}` : `${prefix}...`;
}
