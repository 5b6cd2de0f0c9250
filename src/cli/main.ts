/** The `medrecords` command: dispatches to each command and turns its errors into exit codes. */
import { VERSION } from "../internal/version.js";
import { cassetteCommand } from "./cassette-command.js";
import { custodyCommand } from "./custody-command.js";
import { driftCommand } from "./drift-command.js";
import { EVENTS_TAIL_HELP, eventsTail } from "./events-tail.js";
import { listenCommand } from "./listen.js";
import { mockCommand } from "./mock-command.js";
import { openApiCommand } from "./openapi-command.js";
import { OutputClosedError } from "./process-output.js";
import { triggerCommand } from "./trigger.js";
import { CommandError, type CommandIo, UsageError } from "./usage-error.js";

const HELP = `medrecords: tools for the Medical Record Retrieval API v2

Usage:
  medrecords mock [options]          serve the reference server over HTTP
  medrecords events tail [options]   follow the event log, one line per event
  medrecords listen --forward-to <url>
                                     deliver the event log's events to a local
                                     webhook receiver, signed as the service does
  medrecords trigger <event type>    make a running mock emit an event
  medrecords openapi [options]       print the OpenAPI 3.1 document
  medrecords custody verify <log>    check a custody log's hash chain and checkpoints
  medrecords custody head <log>      print the last entry's "<seq> <hash>"
  medrecords custody checkpoint <log> --tsa <url>
                                     have a TSA witness the head (RFC 3161)
  medrecords custody export <log>    one row per entry, or a packet, for a certification
  medrecords drift <cassette>        replay a recorded cassette against the
                                     reference server and report every drift
  medrecords cassette scrub <in> <out>
                                     scrub a recorded cassette's personal fields
  medrecords --version               print the version
  medrecords <command> --help        show a command's options
`;

const COMMANDS: Record<string, (argv: string[], io: CommandIo) => Promise<number>> = {
  mock: mockCommand,
  listen: listenCommand,
  trigger: triggerCommand,
  openapi: openApiCommand,
  custody: custodyCommand,
  cassette: cassetteCommand,
  drift: driftCommand,
  events: (argv, io) => {
    const [sub, ...rest] = argv;
    if (sub === "tail") return eventsTail(rest, io);
    if (sub === undefined || sub === "--help" || sub === "-h") {
      io.stdout(EVENTS_TAIL_HELP);
      return Promise.resolve(sub === undefined ? 2 : 0);
    }
    throw new UsageError(`unknown command "events ${sub}"; see medrecords events tail --help`);
  },
};

/** Runs one command; the exit code: 0 done, 1 the command failed, 2 it was called wrongly. */
export async function main(argv: string[], io: CommandIo): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === "--help" || command === "-h" || command === "help") {
    io.stdout(HELP);
    return command === undefined ? 2 : 0;
  }
  if (command === "--version" || command === "-v") {
    io.stdout(`${VERSION}\n`);
    return 0;
  }
  const run = COMMANDS[command];
  try {
    if (run === undefined) {
      throw new UsageError(`unknown command "${command}"; see medrecords --help`);
    }
    return await run(rest, io);
  } catch (error) {
    // The reader has had enough (`| head`): not a failure, and nobody to tell.
    if (error instanceof OutputClosedError) return 0;
    // One line, never a stack: these are for people at a terminal and for CI logs.
    if (error instanceof UsageError) {
      io.stderr(`medrecords: ${error.message}\n`);
      return 2;
    }
    if (error instanceof CommandError) {
      io.stderr(`medrecords: ${error.message}\n`);
      return 1;
    }
    const message = error instanceof Error ? error.message : String(error);
    io.stderr(`medrecords: unexpected failure: ${message.split("\n")[0]}\n`);
    return 1;
  }
}
