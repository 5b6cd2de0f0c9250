/**
 * Bundle size: what an edge or browser app ships for one import. Each entry is
 * a two-line ESM file bundled by esbuild's JS API the way a Workers or Vercel
 * Edge bundler would (platform `browser`, conditions `workerd`, `worker`,
 * `browser`, then `import`/`default`; minified, tree-shaken, `node:*` left
 * external), then gzipped at level 9 (brotli 11 in the note).
 *
 * `medrecords` is imported by its package name through a `node_modules`
 * symlink to this repo, so its `exports` map resolves as it does for a user.
 * It reads the built `dist/`: run `npm run build` first.
 *
 * Anchors, and how they were chosen:
 * - `standardwebhooks`: `new Webhook(secret).verify(body, headers)`, the
 *   reference verifier of the same signing scheme family.
 * - `stripe`: `Stripe.webhooks.constructEventAsync(..., Stripe.createSubtleCryptoProvider())`,
 *   Stripe's documented edge-runtime verification. The helper hangs on the
 *   default export (the client class) and the package exports no smaller
 *   subpath, so this is the least a user can import to verify a Stripe webhook.
 * - `openai`: `import OpenAI from "openai"`, the client class alone, against
 *   `import { MedRecords } from "medrecords"`.
 *
 * Besides the ratio, each row has a hard limit: its esbuild figure within a
 * budget, and no bare Node built-in (`https` rather than `node:https`; edge
 * bundlers fail on those). `npm run size` (size-limit, which bundles with
 * rolldown) enforces the CI budgets too, but rolldown tree-shakes
 * `import { z } from "zod"` where esbuild keeps all of zod (112 KB gz instead
 * of 48), so only this suite would see that regression.
 */

import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { builtinModules } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";
import * as esbuild from "esbuild";
import type { BenchRow, Suite } from "../lib/types.ts";

const GROUP = "Bundle size (esbuild, minified, gzip -9)";
const UNIT = "bytes min+gz";
const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

/**
 * esbuild budgets in bytes (min+gz), about 10% above the figures measured
 * when they were set (verifyWebhook 3 412, client 48 063; esbuild 0.28,
 * zod 4.6, ky 2.1). Raise one only with the reason in the commit.
 * verifyWebhook: 4 020 in 0.2, after the deep-nesting guard and the cap on
 * v1= candidates; client: 53 650 in 0.2, reading the operation contract
 * (README, Benchmarks); client: 65 076 with the custody log (issue 28: the
 * streaming SHA-256, the recorder and the save helpers behind the client's
 * lazy imports, which a single-file bundle inlines; 60 496 before); client:
 * 74 054 in the fourth round (issues 34 to 38: the fidelity observer and its
 * drift checker, and the custody log's canonical form and checkpoints, all
 * behind lazy imports this single-file bundle inlines; the first hour's error
 * messages; the RFC 5321 mailbox and event-filter patterns).
 */
const BUDGET = { verifyWebhook: 4_400, client: 80_000 } as const;

const ENTRIES = {
  verifyWebhook: `import { verifyWebhook } from "medrecords/webhooks";\nexport { verifyWebhook };\n`,
  standardwebhooks: `import { Webhook } from "standardwebhooks";\nexport const verify = (secret, body, headers) => new Webhook(secret).verify(body, headers);\n`,
  stripe: `import Stripe from "stripe";\nexport const verify = (body, signature, secret) =>\n  Stripe.webhooks.constructEventAsync(body, signature, secret, undefined, Stripe.createSubtleCryptoProvider());\n`,
  client: `import { MedRecords } from "medrecords";\nexport { MedRecords };\n`,
  openai: `import OpenAI from "openai";\nexport { OpenAI };\n`,
} as const;

type EntryName = keyof typeof ENTRIES;

interface Measured {
  min: number;
  gzip: number;
  brotli: number;
  /** Bare Node built-ins the bundle imports (`https`, not `node:https`). */
  bareBuiltins: string[];
  metafile: esbuild.Metafile;
}

const BARE_BUILTIN = new RegExp(
  `^(${builtinModules
    .filter((m) => !m.startsWith("_") && !m.startsWith("node:"))
    .map((m) => m.replace(/[/\\^$.*+?()[\]{}|-]/g, "\\$&"))
    .join("|")})$`,
);

async function bundle(dir: string, name: EntryName): Promise<Measured> {
  const file = join(dir, `${name}.js`);
  writeFileSync(file, ENTRIES[name]);
  const bareBuiltins = new Set<string>();
  const result = await esbuild.build({
    entryPoints: [file],
    absWorkingDir: dir,
    // The anchors resolve from this repo's node_modules; `medrecords` through the symlink.
    nodePaths: [join(root, "node_modules")],
    bundle: true,
    write: false,
    format: "esm",
    platform: "browser",
    conditions: ["workerd", "worker", "browser"],
    target: "es2022",
    minify: true,
    treeShaking: true,
    legalComments: "none",
    external: ["node:*"],
    metafile: true,
    logLevel: "silent",
    plugins: [
      {
        name: "bare-node-builtins",
        setup(build) {
          build.onResolve({ filter: BARE_BUILTIN }, (args) => {
            bareBuiltins.add(args.path);
            return { path: args.path, external: true };
          });
        },
      },
    ],
  });
  const code = result.outputFiles[0]!.contents;
  return {
    min: code.byteLength,
    gzip: gzipSync(code, { level: 9 }).byteLength,
    brotli: brotliCompressSync(code, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: 11,
        [constants.BROTLI_PARAM_SIZE_HINT]: code.byteLength,
      },
    }).byteLength,
    bareBuiltins: [...bareBuiltins].sort(),
    metafile: result.metafile,
  };
}

/** Minified bytes per package (`zod`, `ky`, `medrecords` for dist/), largest first. */
function byPackage(dir: string, metafile: esbuild.Metafile): Array<[string, number]> {
  const totals = new Map<string, number>();
  for (const output of Object.values(metafile.outputs)) {
    for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) {
      const abs = resolve(dir, input);
      const inModules = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(abs);
      const key = inModules
        ? inModules[1]!
        : abs.startsWith(`${join(root, "dist")}/`)
          ? "medrecords"
          : relative(dir, abs) || "(entry)";
      totals.set(key, (totals.get(key) ?? 0) + bytesInOutput);
    }
  }
  return [...totals].sort((a, b) => b[1] - a[1]);
}

const kb = (n: number) => `${(n / 1000).toFixed(1)} kB`;

function breakdown(dir: string, m: Measured): string {
  return byPackage(dir, m.metafile)
    .filter(([, bytes]) => bytes >= 200)
    .map(([pkg, bytes]) => `${pkg} ${kb(bytes)} (${Math.round((100 * bytes) / m.min)}%)`)
    .join(", ");
}

function figures(m: Measured): string {
  return `${m.min} B min, ${m.gzip} B gz, ${m.brotli} B br`;
}

function row(
  name: string,
  subject: { label: string; m: Measured; budget: number },
  baseline: { label: string; m: Measured },
  note: string,
): BenchRow {
  const bare = [...subject.m.bareBuiltins, ...baseline.m.bareBuiltins.map((b) => `${b} (anchor)`)];
  const ourBare = subject.m.bareBuiltins;
  return {
    group: GROUP,
    name,
    subject: { label: subject.label, value: subject.m.gzip, unit: UNIT },
    baseline: { label: baseline.label, value: baseline.m.gzip, unit: UNIT },
    ratio: baseline.m.gzip / subject.m.gzip,
    target: 1,
    lowerIsBetter: true,
    limit: {
      description:
        `ours <= ${subject.budget} B min+gz (esbuild budget) and no bare Node built-in import` +
        (ourBare.length ? `; imports ${ourBare.join(", ")}: build with node: kept` : "") +
        (subject.m.gzip > subject.budget ? `; is ${subject.m.gzip} B` : ""),
      ok: subject.m.gzip <= subject.budget && ourBare.length === 0,
    },
    note:
      `${note} Ours: ${figures(subject.m)}; ${baseline.label}: ${figures(baseline.m)}.` +
      (bare.length ? ` Bare Node built-ins: ${bare.join(", ")}.` : ""),
  };
}

export const run: Suite = async () => {
  for (const file of ["webhooks.js", "index.js"]) {
    if (!existsSync(join(root, "dist", file))) {
      throw new Error(`bundle-size: dist/${file} is missing; run \`npm run build\` first`);
    }
  }
  const dir = mkdtempSync(join(tmpdir(), "medrecords-bundle-size-"));
  try {
    mkdirSync(join(dir, "node_modules"));
    symlinkSync(root, join(dir, "node_modules", "medrecords"), "dir");
    writeFileSync(join(dir, "package.json"), '{ "type": "module", "private": true }\n');

    const m = {} as Record<EntryName, Measured>;
    for (const name of Object.keys(ENTRIES) as EntryName[]) m[name] = await bundle(dir, name);

    const verify = {
      label: "verifyWebhook (medrecords/webhooks)",
      m: m.verifyWebhook,
      budget: BUDGET.verifyWebhook,
    };
    const ourVerify = breakdown(dir, m.verifyWebhook);
    return [
      row(
        "verifyWebhook only vs standardwebhooks",
        verify,
        { label: "Webhook (standardwebhooks)", m: m.standardwebhooks },
        `Entry imports only verifyWebhook; it pulls ${ourVerify}: no zod, ky or client code.`,
      ),
      row(
        "verifyWebhook only vs stripe",
        verify,
        { label: "Stripe.webhooks.constructEventAsync (stripe)", m: m.stripe },
        "Stripe's webhook helper is reachable only through the default export (the whole client class); no smaller subpath is exported.",
      ),
      row(
        "MedRecords client only vs openai",
        { label: "MedRecords (medrecords)", m: m.client, budget: BUDGET.client },
        { label: "OpenAI (openai)", m: m.openai },
        `Ours by package, minified: ${breakdown(dir, m.client)}. zod is imported as \`import * as z\`: with \`import { z }\` esbuild keeps all of zod (every locale, fromJSONSchema), 112 kB gz.`,
      ),
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};
