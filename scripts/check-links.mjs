// Every relative link of the shipped Markdown (README.md, docs/*.md,
// examples/README.md...) must resolve inside the packed tarball, and every
// `#anchor` to a heading of its target: an installed package has no
// ARCHITECTURE.md, no scripts/ and no test/, so a link to one is broken in
// node_modules (and on npm's page) however well it works in a clone.
//
// Usage: node scripts/check-links.mjs   (from the repository; runs npm pack --dry-run)
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join, normalize } from "node:path";

/** The files `npm pack` would ship, as package-relative paths. */
export function packedFiles(cwd = ".") {
  const out = execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], {
    cwd,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  });
  return new Set(JSON.parse(out)[0].files.map((f) => f.path));
}

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to dashes. */
export function slug(heading) {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");
}

function anchors(markdown) {
  const found = new Set();
  let fenced = false;
  for (const line of markdown.split("\n")) {
    if (line.startsWith("```")) fenced = !fenced;
    const match = !fenced && /^#{1,6}\s+(.*)$/.exec(line);
    if (!match) continue;
    // Inline code and links keep their text, as GitHub renders them.
    const text = match[1].replace(/`([^`]*)`/g, "$1").replace(/\[([^\]]*)\]\([^)]*\)/g, "$1");
    let id = slug(text);
    for (let n = 1; found.has(id); n++) id = `${slug(text)}-${n}`;
    found.add(id);
  }
  return found;
}

/** Relative links of one Markdown file, outside code blocks and spans. */
function links(markdown) {
  const out = [];
  let fenced = false;
  for (const line of markdown.split("\n")) {
    if (line.startsWith("```")) fenced = !fenced;
    if (fenced) continue;
    const text = line.replace(/`[^`]*`/g, "");
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:
      out.push(target);
    }
  }
  return out;
}

export function checkLinks(cwd = ".") {
  const files = packedFiles(cwd);
  const problems = [];
  let checked = 0;
  for (const file of [...files].filter((f) => f.endsWith(".md"))) {
    const text = readFileSync(join(cwd, file), "utf8");
    for (const target of links(text)) {
      checked++;
      const [path, anchor] = target.split("#");
      const resolved = path === "" ? file : normalize(join(dirname(file), decodeURI(path)));
      const isDir = [...files].some((f) => f.startsWith(`${resolved.replace(/\/$/, "")}/`));
      if (!files.has(resolved) && !isDir) {
        problems.push(`${file}: ${target}: ${resolved} is not in the package`);
        continue;
      }
      if (anchor && resolved.endsWith(".md")) {
        if (!anchors(readFileSync(join(cwd, resolved), "utf8")).has(anchor)) {
          problems.push(`${file}: ${target}: no heading #${anchor} in ${resolved}`);
        }
      }
    }
  }
  return { checked, problems };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { checked, problems } = checkLinks();
  if (problems.length > 0) {
    console.error(`check-links: ${problems.length} broken\n${problems.join("\n")}`);
    process.exit(1);
  }
  console.log(`check-links: ${checked} relative links resolve inside the package`);
}
