/** What BENCHMARKS.md records about where and with what a run happened. */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import os from "node:os";
import { resolve } from "node:path";

export interface Machine {
  cpu: string;
  cores: number;
  memory: string;
  os: string;
  node: string;
}

export interface Version {
  name: string;
  version: string;
  role: string;
}

/** The packages measured against, or measuring; each read from node_modules. */
const ANCHORS: [name: string, role: string][] = [
  ["stripe", "anchor: constructEvent, constructEventAsync; bundle size"],
  ["svix", "anchor: Webhook.verify"],
  ["standardwebhooks", "under svix (its HMAC); anchor: bundle size"],
  ["openai", "anchor: client bundle size"],
  ["ky", "runtime dependency"],
  ["zod", "runtime dependency"],
  ["msw", "peer dependency (medrecords/mock)"],
  ["size-limit", "bench tooling: sizes"],
  ["@size-limit/preset-small-lib", "bench tooling: sizes"],
  ["esbuild", "bench tooling: bundling"],
];

function osName(): string {
  try {
    const release = readFileSync("/etc/os-release", "utf8");
    const pretty = /^PRETTY_NAME="?([^"\n]+)"?/m.exec(release)?.[1];
    if (pretty) return `${pretty} (${os.type()} ${os.release()}, ${os.arch()})`;
  } catch {
    // Not Linux, or no os-release: the kernel line alone.
  }
  return `${os.type()} ${os.release()} (${os.arch()})`;
}

export function machine(): Machine {
  const cpus = os.cpus();
  const speed = cpus[0]?.speed ? ` @ ${(cpus[0].speed / 1000).toFixed(2)} GHz` : "";
  return {
    cpu: `${cpus[0]?.model.trim() ?? "unknown"}${speed}`,
    cores: os.availableParallelism(),
    memory: `${(os.totalmem() / 2 ** 30).toFixed(1)} GiB`,
    os: osName(),
    node: process.version,
  };
}

function packageVersion(root: string, name: string): string | undefined {
  const file = resolve(root, "node_modules", name, "package.json");
  if (!existsSync(file)) return undefined;
  return (JSON.parse(readFileSync(file, "utf8")) as { version?: string }).version;
}

/** medrecords as checked out (version, commit, whether the tree is dirty). */
function ownVersion(root: string): string {
  const { version } = JSON.parse(readFileSync(resolve(root, "package.json"), "utf8")) as {
    version: string;
  };
  try {
    const git = (args: string[]) =>
      execFileSync("git", args, {
        cwd: root,
        encoding: "utf8",
        stdio: ["ignore", "pipe", "ignore"],
      });
    const commit = git(["rev-parse", "--short", "HEAD"]).trim();
    const dirty = git(["status", "--porcelain", "--", "src", "package.json", "tsup.config.ts"]);
    return `${version} (${commit}${dirty.trim() ? ", with uncommitted changes" : ""})`;
  } catch {
    return version;
  }
}

export function versions(root: string): Version[] {
  const list: Version[] = [
    { name: "medrecords", version: ownVersion(root), role: "measured (built dist/)" },
  ];
  for (const [name, role] of ANCHORS) {
    const version = packageVersion(root, name);
    if (version) list.push({ name, version, role });
  }
  return list;
}
