#!/usr/bin/env node
// Builds the CLI ahead of time (issue 26): main/cli/index.ts bundled by esbuild into out/cli/index.cjs, so
// the `payout-desk` bin starts plain JavaScript instead of transpiling TypeScript on every run.
// Run: node scripts/build-cli.mjs [--outdir DIR] [--warn-only]   (npm run build:cli; also `prepare` and `npm run build`)
//
// The pure-JavaScript dependencies are bundled in: resolving and loading dozens of packages file by file
// is a large part of start-up. Native modules stay outside and load from node_modules at run time.
// One CommonJS file, not ES module chunks: node 20 keeps no compiled code between runs, but a script can
// be given V8's code cache (vm.Script cachedData), and esbuild turns each import() of the sources into a
// module initialised on first use, so a command still evaluates only the modules it imports. The build
// runs one desk command to write that cache (index.cjs.v8cache); bin/payout-desk.cjs reads it.
// Besides the bundle, the build writes inputs.json (every source file it read): bin/payout-desk.cjs
// compares their times with the build's, and runs the sources instead of a bundle older than they are.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * Left to node_modules: native addons (keytar's and better-sqlite3's, see addonsByPath), pg's
 * optional native binding (not installed), pdfkit (its font metrics are files), xmlbuilder2 (only the statement
 * files need it; a command that makes none never loads it) and nodemailer (only an e-mailed remittance advice
 * needs it: loaded when a mail is sent, main/remittance/mail.ts).
 */
const NATIVE_OR_OPTIONAL = ['*.node', 'bindings', 'better-sqlite3/package.json', 'pg-native', 'pdfkit', 'xmlbuilder2', 'nodemailer'];

/**
 * The JavaScript of keytar and better-sqlite3 is bundled (from node_modules it was a dozen files to resolve,
 * read and compile on every desk command, outside the code cache); their addons stay in node_modules, where
 * `npm install` builds them, required by their path there. better-sqlite3's instead of through the `bindings`
 * package, which tries several paths first; a build that put it elsewhere is still found by `bindings`, told
 * where the package is.
 */
const addonsByPath = {
  name: 'addons-by-path',
  setup(build) {
    build.onResolve({ filter: /^\.\.\/build\/Release\/keytar\.node$/ }, (args) =>
      /[\\/]keytar[\\/]lib[\\/]/.test(args.importer) ? { path: 'keytar/build/Release/keytar.node', external: true } : undefined,
    );
    build.onResolve({ filter: /^bindings$/ }, (args) =>
      /[\\/]better-sqlite3[\\/]lib[\\/]/.test(args.importer) ? { path: 'better-sqlite3-addon', namespace: 'addons-by-path' } : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'addons-by-path' }, () => ({
      loader: 'js',
      contents: `
        module.exports = function bindings(name) {
          try {
            return require('better-sqlite3/build/Release/better_sqlite3.node');
          } catch (e) {
            if (e.code !== 'MODULE_NOT_FOUND') throw e;
            const { dirname } = require('node:path');
            return require('bindings')({ bindings: name, module_root: dirname(require.resolve('better-sqlite3/package.json')) });
          }
        };`,
    }));
  },
};

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
  // What an earlier build left, its code cache above all (a cache of another bundle); .mjs: the chunks of the
  // builds before the single file.
  if (existsSync(outdir)) for (const file of readdirSync(outdir)) if (/\.(mjs|cjs|map|v8cache)$|\.v8cache\.build$|^inputs\.json$|LEGAL\.txt$/.test(file)) rmSync(join(outdir, file));
  const result = await build({
    absWorkingDir: root,
    entryPoints: { index: 'main/cli/index.ts' },
    outdir,
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    outExtension: { '.js': '.cjs' },
    external: NATIVE_OR_OPTIONAL,
    plugins: [zodWithoutLocales, mimeTableLeftOut, addonsByPath],
    // main/cli/index.ts runs itself when node is given its path (npm run cli); the bundle never is.
    define: { 'import.meta.url': 'undefined' },
    // import() of a native module (keytar) becomes require(): the bin runs the bundle as a vm script, which
    // has no loader for import().
    supported: { 'dynamic-import': false },
    minify: true,
    // Non-ASCII characters written as escapes: the bin reads the bundle as latin1, twice as fast as UTF-8.
    charset: 'ascii',
    // Licence notices of the bundled packages go beside it (index.cjs.LEGAL.txt): comments are not escaped, and
    // some name their authors in UTF-8.
    legalComments: 'external',
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
  // What charset promises, checked: a byte above 127 read as latin1 would be another character.
  const bundle = readFileSync(join(outdir, 'index.cjs'));
  const nonAscii = bundle.findIndex((byte) => byte > 127);
  if (nonAscii !== -1) throw new Error(`out/cli/index.cjs is not pure ASCII (byte ${nonAscii}): the bin reads it as latin1`);
  writeFileSync(join(outdir, 'inputs.json'), `${JSON.stringify({ builtAt, inputs }, null, 1)}\n`);
  writeCodeCache(outdir);
  return join(outdir, 'index.cjs');
}

/**
 * Runs one desk command on an empty data folder through the bin, which finds no code cache and writes one
 * after the command (V8 keeps the code of every function that ran, the desk's composition included).
 */
function writeCodeCache(outdir) {
  const home = mkdtempSync(join(tmpdir(), 'payout-desk-cli-build-'));
  try {
    // No profile in the folder: it composes the desk, stops with a usage error (exit 2) and touches nothing else.
    const ran = spawnSync(process.execPath, [join(root, 'bin', 'payout-desk.cjs'), 'payouts', 'list', '--home', home], {
      env: { ...process.env, PAYOUT_DESK_CLI_BUILD: outdir, PAYOUT_DESK_HOME: '' },
      encoding: 'utf8',
    });
    // Not a failed build: the bundle is there, and its first run writes the cache.
    if (!existsSync(join(outdir, 'index.cjs.v8cache'))) process.stderr.write(`payout-desk: the CLI is built, but its code cache is not (exit ${ran.status}): ${ran.stderr.trim()}\n`);
    // This run never reaches a profile's desk (no profile, no keychain needed): the first command that does
    // writes the cache again with that code too, once (bin/payout-desk.cjs), and removes this mark.
    else writeFileSync(join(outdir, 'index.cjs.v8cache.build'), '');
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
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
