import { readFileSync } from "node:fs";

const HELP = `medrecords: tools for the Medical Record Retrieval API v2

Usage:
  medrecords --help       show this help
  medrecords --version    print the version

Commands are added as they land (see the README's roadmap).
`;

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as {
    version: string;
  };
  return pkg.version;
}

export function main(argv: string[]): number {
  const [command] = argv;
  if (command === undefined || command === "--help" || command === "-h" || command === "help") {
    process.stdout.write(HELP);
    return 0;
  }
  if (command === "--version" || command === "-v") {
    process.stdout.write(`${version()}\n`);
    return 0;
  }
  process.stderr.write(`medrecords: unknown command "${command}"; see medrecords --help\n`);
  return 2;
}

process.exitCode = main(process.argv.slice(2));
