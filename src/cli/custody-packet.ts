/** `medrecords custody export <log> --format packet <dir>`: the files a certification of authenticity relies on. */
import { mkdir, open, readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { base64ToBytes } from "../custody/checkpoint.js";
import type { CustodyLog } from "../custody/log.js";
import type { CustodyVerification } from "../custody/verify.js";
import { CommandError } from "./usage-error.js";

type RowWriter = (
  log: CustodyLog,
  count: number,
  format: "csv" | "json",
  write: (text: string) => Promise<void>,
) => Promise<void>;

/**
 * Writes `dir` (created if absent, refused if not empty): entries.csv,
 * entries.json, each checkpoint's token as `<seq>.tsr` (the TSA's reply,
 * DER) and METHOD.md, for a log that verified as `result`.
 */
export async function writePacket(
  log: CustodyLog,
  result: CustodyVerification,
  dir: string,
  { rows }: { rows: RowWriter },
): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const present = await readdir(dir);
  if (present.length > 0) {
    throw new CommandError(`${dir} is not empty: a packet is written to a new or empty directory`);
  }
  for (const format of ["csv", "json"] as const) {
    // Exclusive create: nothing that appeared meanwhile is overwritten.
    const handle = await open(join(dir, `entries.${format}`), "wx", 0o600);
    try {
      await rows(log, result.entries, format, async (text) => {
        await handle.write(text);
      });
    } finally {
      await handle.close();
    }
  }
  const tokens: string[] = [];
  for await (const value of log.checkpoints?.() ?? []) {
    const { seq, token } = value as { seq: number; token: string };
    if (seq > result.entries) continue;
    await writeFile(join(dir, `${seq}.tsr`), base64ToBytes(token), { flag: "wx", mode: 0o600 });
    tokens.push(`${seq}.tsr`);
  }
  await writeFile(join(dir, "METHOD.md"), method(result, tokens), { flag: "wx", mode: 0o600 });
}

function method(result: CustodyVerification, tokens: string[]): string {
  const witnessed = result.checkpoints
    .map((c) => `| ${c.seq} | \`${c.hash}\` | ${c.time?.toISOString()} | \`${c.seq}.tsr\` |`)
    .join("\n");
  return `# How this custody log was kept, and how to re-verify it

Exported by \`medrecords custody export --format packet\` from a log of
${result.entries} entries whose chain verified${result.head === null ? "" : `, last hash \`${result.head}\``}.

## Files

- \`entries.csv\`, \`entries.json\`: one row per entry, the same facts in two forms.
- \`<seq>.tsr\`: for each checkpoint, the RFC 3161 time-stamp reply (DER) of the
  time-stamping authority (TSA), whose message imprint is entry \`<seq>\`'s hash.
- \`METHOD.md\`: this file.

## Columns

| column | meaning |
|---|---|
| seq | position in the log: 1, then one more for each entry |
| at | when the transfer completed, ISO 8601 UTC, by the recording machine's clock |
| action | \`download\` (the firm received the file) or \`upload\` (the firm sent it) |
| document_id, retrieval_request_id, case_id | the service's ids, when known |
| file_name, file_type | as the service gave them or the upload was signed with (in CSV, control characters are written \`\\xNN\`; JSON keeps them) |
| bytes | how many bytes were transferred |
| hash_algorithm | SHA-256 |
| sha256 | SHA-256 of exactly those bytes: \`sha256sum <file>\` of the produced file must print it |
| request_id | the service's \`X-Request-Id\` of the call that issued the transfer address |
| actor | who handled the file, as the firm's application named it |
| prev_hash | entry_hash of the entry before (64 zeros for entry 1) |
| entry_hash | SHA-256 of this entry's canonical form (below) |

## Algorithm

Each entry is a JSON object. Its canonical form is RFC 8785 (the JSON
Canonicalization Scheme): keys sorted, no whitespace, strings and numbers in
one fixed form. \`entry_hash\` is SHA-256 over the UTF-8 bytes of the canonical
form of every field but \`hash\`; entries written since version 2 carry
\`"v":2\` and are stored as exactly their canonical form with \`hash\`.

**Chain rule.** Entry 1's \`prev_hash\` is 64 zeros; every later entry's
\`prev_hash\` is the \`entry_hash\` of the entry before, and \`seq\` rises by one.
Editing, removing, inserting or reordering an entry breaks the chain there.
A chain can be recomputed whole by whoever holds it; the checkpoints are what
shows it was not: a TSA, independent of the firm, signed that the entry at
\`seq\` had that hash at that time.

| seq | hash witnessed | time (TSA) | token |
|---|---|---|---|
${witnessed || "| (no checkpoints) | | | |"}

## Re-verifying with standard tools

An entry's hash, from this packet's entries.json (jq sorts the keys and
writes no spaces, which is the canonical form for these values; entries
written before version 2 carry no \`v\`: drop \`+ {v: 2}\` for them):

\`\`\`sh
jq -cS '.[] | select(.seq == <seq>) | del(.hash_algorithm, .entry_hash) + {v: 2}' entries.json | tr -d '\\n' | sha256sum
\`\`\`

The same from the log file itself (version 2 entries: the stored line
without its \`"hash":"..."\` member is the canonical form):

\`\`\`sh
sed -n '<seq>p' custody.jsonl | sed -E 's/,"hash":"[0-9a-f]{64}"//' | tr -d '\\n' | sha256sum
\`\`\`

A produced file against its entry: \`sha256sum <file>\` prints the \`sha256\` column.

Each checkpoint, against the TSA's root certificate \`<ca.pem>\` (obtained from the TSA):

\`\`\`sh
${(tokens.length > 0 ? tokens : ["<seq>.tsr"]).map((t) => `openssl ts -verify -digest <hash of entry ${t.replace(".tsr", "")}> -in ${t} -CAfile <ca.pem>`).join("\n")}
openssl ts -reply -in <seq>.tsr -text   # shows the time and the message imprint
\`\`\`

"Verification: OK" means the TSA signed that hash at the time shown; the
entry with that \`seq\` in entries.csv must carry that \`entry_hash\`, and each
earlier entry must chain to it.
`;
}
