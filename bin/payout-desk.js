#!/usr/bin/env node
// The `payout-desk` command. It runs the CLI built ahead of time (out/cli/index.cjs, made by
// scripts/build-cli.mjs on `npm install` and `npm run build`) in this very process: no TypeScript to
// transpile, no second node. Without a build, or with a build older than one of the sources it was made
// from, it runs main/cli/index.ts under tsx as before, after one line on stderr that says how to build.
// PAYOUT_DESK_CLI_BUILD names another build folder (the tests and the start-up bench use it).
import { spawn } from 'node:child_process';
import { readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Script } from 'node:vm';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const buildDir = resolve(process.env.PAYOUT_DESK_CLI_BUILD || join(root, 'out', 'cli'));

/** Why the build cannot be used ('' when it can): missing, or a source file changed after it was made. */
function whyNotBuilt() {
  let manifest;
  try {
    manifest = JSON.parse(readFileSync(join(buildDir, 'inputs.json'), 'utf8'));
    statSync(join(buildDir, 'index.cjs'));
  } catch {
    return 'the CLI is not built';
  }
  // A few hundred stats (a few ms): a developer who edited a file never runs yesterday's bundle.
  for (const input of manifest.inputs) {
    let changed;
    try {
      changed = statSync(join(root, input)).mtimeMs > manifest.builtAt;
    } catch {
      changed = true;
    }
    if (changed) return `the CLI build is older than ${input}`;
  }
  return '';
}

const why = whyNotBuilt();
if (why === '') {
  const bundle = loadBundle(join(buildDir, 'index.cjs'));
  process.exitCode = await bundle.exports.runCli(process.argv.slice(2));
  bundle.keepCodeCache();
} else {
  process.stderr.write(`payout-desk: ${why}; running the sources (slower start). Build it with: npm run build:cli\n`);
  runFromSources();
}

/**
 * Runs the CommonJS bundle as node's require() would, but compiled with V8's code cache kept beside it
 * (index.cjs.v8cache, written by the build): most of a command's start is compiling the bundle, and node 20
 * keeps no compiled code between runs. A cache V8 rejects (another node, another build) is ignored and
 * rewritten after the command. The cache lives only in the build folder: whoever can write it can already
 * change the bundle itself, never in a shared temporary folder.
 */
function loadBundle(file) {
  const cacheFile = `${file}.v8cache`;
  let cachedData;
  try {
    cachedData = readFileSync(cacheFile);
  } catch {
    cachedData = undefined;
  }
  const source = readFileSync(file, 'utf8');
  const script = new Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, { filename: file, cachedData });
  const module = { exports: {} };
  script.runInThisContext()(module.exports, createRequire(file), module, file, dirname(file));
  return {
    exports: module.exports,
    keepCodeCache() {
      if (cachedData !== undefined && !script.cachedDataRejected) return;
      // After the command: the cache then holds every function it ran, not only the top level.
      const temporary = `${cacheFile}.${process.pid}`;
      try {
        writeFileSync(temporary, script.createCachedData());
        renameSync(temporary, cacheFile);
      } catch {
        // A read-only install: each run compiles the bundle, a little slower.
      }
    },
  };
}

function runFromSources() {
  // Resolved from this file, so the command works from any working directory.
  const tsx = import.meta.resolve('tsx');
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
