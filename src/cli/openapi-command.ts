/** `medrecords openapi`: the OpenAPI 3.1 document of the /v2 API, generated from the zod schemas. */
import { writeFile } from "node:fs/promises";
import { openApiDocument } from "../openapi/document.js";
import { parseFlags } from "./args.js";
import { CommandError, type CommandIo } from "./usage-error.js";

export const OPENAPI_HELP = `Usage: medrecords openapi [--output <file>]

Prints the OpenAPI 3.1 document of the Medical Record Retrieval API v2, the
same one the package ships as medrecords/openapi.json and the reference
server serves at /v2/openapi.json.

Options:
  -o, --output <file>   write it to a file instead of stdout
  -h, --help            show this help
`;

const FLAGS = {
  output: { type: "string", short: "o" },
  help: { type: "boolean", short: "h" },
} as const;

export async function openApiCommand(argv: string[], io: CommandIo): Promise<number> {
  const flags = parseFlags(argv, FLAGS, "openapi");
  if (flags.help) {
    io.stdout(OPENAPI_HELP);
    return 0;
  }
  const text = `${JSON.stringify(openApiDocument(), null, 2)}\n`;
  if (flags.output === undefined) {
    await io.stdout(text);
    return 0;
  }
  try {
    await writeFile(flags.output, text);
  } catch (error) {
    throw new CommandError(
      `cannot write ${flags.output}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
    );
  }
  return 0;
}
