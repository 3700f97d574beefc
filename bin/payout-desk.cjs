#!/usr/bin/env node
// The `payout-desk` command. It runs the CLI built ahead of time (out/cli/index.cjs, made by
// scripts/build-cli.mjs on `npm install` and `npm run build`) in this very process: no TypeScript to
// transpile, no second node. Without a build, or with a build older than one of the sources it was made
// from, it runs main/cli/index.ts under tsx as before, after one line on stderr that says how to build.
// PAYOUT_DESK_CLI_BUILD names another build folder (the tests and the start-up bench use it).
// CommonJS, as the bundle: an ES module entry costs node about 10 ms more to start.
'use strict';
const { spawn } = require('node:child_process');
const { existsSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } = require('node:fs');
const { createRequire } = require('node:module');
const { dirname, join, resolve } = require('node:path');
const { pathToFileURL } = require('node:url');
const { Script } = require('node:vm');

const root = join(__dirname, '..');
const buildDir = resolve(process.env.PAYOUT_DESK_CLI_BUILD || join(root, 'out', 'cli'));

/** The build's list of the sources it was made from, or null when there is no build. */
function readManifest() {
  try {
    return JSON.parse(readFileSync(join(buildDir, 'inputs.json'), 'utf8'));
  } catch {
    return null;
  }
}

/**
 * Why the build cannot be used ('' when it can): a source file changed after it was made, so a developer who
 * edited a file never runs yesterday's bundle. A few hundred stats, about 10 ms (made in node's thread pool
 * beside the compile instead, they cost this thread more than that to dispatch).
 */
function sourceNewerThan(manifest) {
  for (const input of manifest.inputs) {
    const stats = statSync(join(root, input), { throwIfNoEntry: false });
    if (stats === undefined || stats.mtimeMs > manifest.builtAt) return `the CLI build is older than ${input}`;
  }
  return '';
}

/**
 * The CommonJS bundle compiled as node's require() would, but with V8's code cache kept beside it
 * (index.cjs.v8cache, written by the build): most of a command's start is compiling the bundle, and node 20
 * keeps no compiled code between runs. A cache V8 rejects (another node, another build) is ignored and
 * rewritten after the command. The cache lives only in the build folder: whoever can write it can already
 * change the bundle itself, never in a shared temporary folder. Null when there is no bundle.
 * The build's cache holds what the build's own command compiled (a desk command on an empty folder, no
 * keychain needed): the first command that opens the desk on a profile writes it again, once, with the code
 * of that path too (index.cjs.v8cache.build marks a cache the build wrote).
 */
function compileBundle(file) {
  const cacheFile = `${file}.v8cache`;
  let source;
  try {
    // Pure ASCII (the build makes sure), so latin1 reads it exactly, and faster than UTF-8.
    source = readFileSync(file, 'latin1');
  } catch {
    return null;
  }
  let cachedData;
  try {
    cachedData = readFileSync(cacheFile);
  } catch {
    cachedData = undefined;
  }
  const fromBuild = `${cacheFile}.build`;
  const script = new Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, { filename: file, cachedData });
  let cli;
  return {
    run(argv) {
      const module = { exports: {} };
      script.runInThisContext()(module.exports, createRequire(file), module, file, dirname(file));
      cli = module.exports;
      return cli.runCli(argv);
    },
    keepCodeCache() {
      const widen = typeof cli.cliDeskOpened === 'function' && cli.cliDeskOpened() && existsSync(fromBuild);
      if (cachedData !== undefined && !script.cachedDataRejected && !widen) return;
      // After the command: the cache then holds every function it ran, not only the top level.
      const temporary = `${cacheFile}.${process.pid}`;
      try {
        writeFileSync(temporary, script.createCachedData());
        renameSync(temporary, cacheFile);
        rmSync(fromBuild, { force: true });
      } catch {
        // A read-only install: each run compiles the bundle, a little slower.
      }
    },
  };
}

function runFromSources(why) {
  process.stderr.write(`payout-desk: ${why}; running the sources (slower start). Build it with: npm run build:cli\n`);
  // Resolved from this file, so the command works from any working directory.
  const tsx = pathToFileURL(require.resolve('tsx')).href;
  const child = spawn(process.execPath, ['--import', tsx, join(root, 'main', 'cli', 'index.ts'), ...process.argv.slice(2)], {
    cwd: process.cwd(),
    stdio: 'inherit',
    env: { ...process.env, NODE_OPTIONS: [process.env.NODE_OPTIONS, '--no-warnings'].filter(Boolean).join(' ') },
  });
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
  child.on('error', (e) => {
    process.stderr.write(`payout-desk: could not start the CLI: ${e.message}\n`);
    process.exit(1);
  });
}

async function main() {
  const manifest = readManifest();
  if (manifest === null) return runFromSources('the CLI is not built');
  const why = sourceNewerThan(manifest);
  if (why !== '') return runFromSources(why);
  const bundle = compileBundle(join(buildDir, 'index.cjs'));
  if (bundle === null) return runFromSources('the CLI is not built');
  process.exitCode = await bundle.run(process.argv.slice(2));
  bundle.keepCodeCache();
}

main().catch((e) => {
  // Only a bundle that cannot even start gets here (runCli reports every command's own failure).
  process.stderr.write(`payout-desk: the built CLI did not start: ${e instanceof Error ? e.message : String(e)}. Rebuild it with: npm run build:cli\n`);
  process.exitCode = 1;
});
