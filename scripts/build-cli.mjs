#!/usr/bin/env node
// Builds the CLI ahead of time (issue 26): main/cli/index.ts bundled by esbuild into out/cli/, so the
// `payout-desk` bin starts plain JavaScript instead of transpiling TypeScript on every run.
// Run: node scripts/build-cli.mjs [--outdir DIR] [--warn-only]   (npm run build:cli; also `prepare` and `npm run build`)
//
// The pure-JavaScript dependencies are bundled in: resolving and loading dozens of packages file by file
// is a large part of start-up. Native modules stay outside and load from node_modules at run time.
// Besides the bundle, the build writes inputs.json (every source file it read): bin/payout-desk.js
// compares their times with the build's, and runs the sources instead of a bundle older than they are.
import { existsSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Left to node_modules: native addons, and pg's optional native binding (not installed). */
const NATIVE_OR_OPTIONAL = ['keytar', 'better-sqlite3', 'pg-native'];

/**
 * zod's classic and mini APIs and its core re-export every translation of its messages (`z.locales`, about a
 * quarter of the bundle); the app uses none of them, only the English one (set up by the classic API itself
 * and by main/zod-mini.ts). An empty module stands in for the list, so start-up does not parse it.
 */
const zodWithoutLocales = {
  name: 'zod-without-locales',
  setup(build) {
    build.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      /[\\/]zod[\\/]v4[\\/](classic|mini|core)[\\/]/.test(args.importer) ? { path: 'zod-locales', namespace: 'zod-without-locales' } : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'zod-without-locales' }, () => ({ contents: 'export {};', loader: 'js' }));
  },
};

/**
 * axios carries form-data for multipart uploads, and form-data the whole MIME type table (mime-db, about
 * 200 kB of JSON) to guess an uploaded file's type. The CLI never uploads a file through axios, so an empty
 * table stands in: a lookup finds nothing and form-data falls back to its default type.
 */
const mimeTableLeftOut = {
  name: 'mime-table-left-out',
  setup(build) {
    build.onResolve({ filter: /^mime-db$/ }, () => ({ path: 'mime-db', namespace: 'mime-table-left-out' }));
    build.onLoad({ filter: /.*/, namespace: 'mime-table-left-out' }, () => ({ contents: 'module.exports = {};', loader: 'js' }));
  },
};

/** Builds into `outdir` (default out/cli); resolves to the entry file's path. */
export async function buildCli({ outdir = join(root, 'out', 'cli') } = {}) {
  // esbuild comes with tsx and vite (devDependencies); imported here so that importing this file costs nothing.
  const { build } = await import('esbuild');
  // Taken before reading the sources: a file saved during the build counts as newer than the bundle.
  const builtAt = Date.now();
  // Chunks are named by their content: those of an earlier build would pile up beside the new ones.
  if (existsSync(outdir)) for (const file of readdirSync(outdir)) if (/\.(mjs|map)$|^inputs\.json$/.test(file)) rmSync(join(outdir, file));
  const result = await build({
    absWorkingDir: root,
    entryPoints: { index: 'main/cli/index.ts' },
    outdir,
    bundle: true,
    // Commands load what they need with import(): splitting puts that in chunks read only by those commands.
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    outExtension: { '.js': '.mjs' },
    external: NATIVE_OR_OPTIONAL,
    plugins: [zodWithoutLocales, mimeTableLeftOut],
    // Bundled CommonJS packages call require() for node's own modules: give the ES module one.
    banner: { js: "import { createRequire as __payoutDeskRequire } from 'node:module'; const require = __payoutDeskRequire(import.meta.url);" },
    minify: true,
    // Error classes keep their names: describeError prints a foreign error's class when it has no code.
    keepNames: true,
    sourcemap: 'linked',
    metafile: true,
    logLevel: 'warning',
  });
  const inputs = Object.keys(result.metafile.inputs)
    // Our own source files; not node_modules (npm install rebuilds), nor the plugin's stand-in (not a file).
    .filter((path) => !path.includes(':') && !path.startsWith('node_modules/') && !path.includes('/node_modules/'))
    .map((path) => relative(root, resolve(root, path)))
    .sort();
  writeFileSync(join(outdir, 'inputs.json'), `${JSON.stringify({ builtAt, inputs }, null, 1)}\n`);
  return join(outdir, 'index.mjs');
}

const invokedDirectly = process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href;
if (invokedDirectly) {
  const at = process.argv.indexOf('--outdir');
  const outdir = at === -1 ? undefined : resolve(process.argv[at + 1] ?? '');
  const started = performance.now();
  try {
    const entry = await buildCli(outdir ? { outdir } : {});
    process.stdout.write(`CLI built: ${relative(process.cwd(), entry)} (${Math.round(performance.now() - started)} ms)\n`);
  } catch (e) {
    // Also what `npm install` shows when `prepare` fails: say what failed and what still works.
    process.stderr.write(
      `payout-desk: building the CLI (scripts/build-cli.mjs) failed: ${e instanceof Error ? e.message : String(e)}\n` +
        'The bin falls back to running the TypeScript sources (slower start). Fix the error, then: npm run build:cli\n',
    );
    // --warn-only (the `prepare` script): say so, but let `npm install` / `npm ci` finish; the bin still works.
    process.exitCode = process.argv.includes('--warn-only') ? 0 : 1;
  }
}
