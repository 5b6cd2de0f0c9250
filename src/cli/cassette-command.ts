/** `medrecords cassette scrub <in> <out>`: scrubs an existing cassette (docs/fidelity.md). */
import { readFile, writeFile } from "node:fs/promises";
import { parseArgs } from "node:util";
import { CassetteFormatError, parseCassette } from "../fidelity/cassette-format.js";
import { scrubCassette } from "../fidelity/cassette-scrub.js";
import { CommandError, type CommandIo, UsageError } from "./usage-error.js";

export const CASSETTE_HELP = `Usage: medrecords cassette scrub <in> <out>

Writes <out>: the cassette <in> (JSON lines, one exchange each) with every
personal field replaced by a fictional value (the same input by the same
value within <out>), no API key, webhook secret or presigned token, and error
messages replaced: what record: cassette(path) writes. <out> is created with
mode 0600 and must not exist yet.

Options:
  -h, --help   show this help

Exit codes: 0 written, 1 <out> could not be written, 2 <in> unreadable or not
a cassette, or a usage error.
`;

const FLAGS = { help: { type: "boolean", short: "h" } } as const;

export async function cassetteCommand(argv: string[], io: CommandIo): Promise<number> {
  let parsed: ReturnType<typeof parseArgs<{ options: typeof FLAGS; allowPositionals: true }>>;
  try {
    parsed = parseArgs({ args: argv, options: FLAGS, strict: true, allowPositionals: true });
  } catch (error) {
    const message = error instanceof Error ? error.message.split(". ")[0] : String(error);
    throw new UsageError(`${message}; see medrecords cassette --help`);
  }
  const { values, positionals } = parsed;
  if (values.help || positionals.length === 0) {
    await io.stdout(CASSETTE_HELP);
    return values.help ? 0 : 2;
  }
  const [sub, input, output, ...extra] = positionals;
  if (sub !== "scrub") {
    throw new UsageError(`unknown command "cassette ${sub}"; see medrecords cassette --help`);
  }
  if (input === undefined || output === undefined || extra.length > 0) {
    throw new UsageError("cassette scrub takes <in> and <out>; see medrecords cassette --help");
  }
  const cassette = await readCassette(input);
  const key = io.env.MEDRECORDS_API_KEY?.trim();
  const redact = (text: string) =>
    key !== undefined && key.length >= 4 ? text.replaceAll(key, "[redacted]") : text;
  try {
    // `wx`: never over a file, least of all the input.
    await writeFile(output, await scrubCassette(cassette, redact), { mode: 0o600, flag: "wx" });
  } catch (error) {
    throw new CommandError(
      `cannot write ${output}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
    );
  }
  io.stderr(`medrecords: ${cassette.entries.length} exchange(s) scrubbed into ${output}\n`);
  return 0;
}

/** Reads and parses a cassette; an unreadable one is a usage error (exit 2), naming the line. */
export async function readCassette(path: string) {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    throw new UsageError(
      `cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
    );
  }
  try {
    return parseCassette(text);
  } catch (error) {
    if (error instanceof CassetteFormatError) {
      throw new UsageError(`${path} is not a cassette: ${error.message}`);
    }
    throw error;
  }
}
