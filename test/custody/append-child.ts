/**
 * A process appending to one file custody log: argv path, count, name, go
 * (and "pid" to print its pid after "ready", for a child in its own PID namespace).
 * Run several at once by test/custody/file-log.test.ts: prints "ready", waits
 * for the file `go` to exist (so that every process appends at the same time,
 * however long each took to start), then prints "done <start> <end>" (epoch ms
 * of its first append call and of its last append resolved) when all its appends
 * resolved.
 */
import { existsSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { fileCustodyLog } from "../../src/custody/file-log.js";

const [path, count, name, go, showPid] = process.argv.slice(2) as [
  string,
  string,
  string,
  string,
  string?,
];
const log = fileCustodyLog(path, { lockTimeoutMs: 60_000 });
process.stdout.write(showPid === "pid" ? `ready pid ${process.pid}\n` : "ready\n");
while (!existsSync(go)) await sleep(5);
const start = Date.now();
for (let i = 0; i < Number(count); i++) {
  await log.append({
    at: new Date().toISOString(),
    action: "download",
    document_id: `${name}-${i}`,
    retrieval_request_id: null,
    case_id: null,
    file_name: `${name}-${i}.pdf`,
    file_type: "application/pdf",
    bytes: i,
    sha256: "a".repeat(64),
    request_id: null,
    actor: name,
  });
}
process.stdout.write(`done ${start} ${Date.now()}\n`);
