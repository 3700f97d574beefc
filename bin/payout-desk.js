#!/usr/bin/env node
// The `payout-desk` command. It runs the CLI built ahead of time (out/cli/index.mjs, made by
// scripts/build-cli.mjs on `npm install` and `npm run build`) in this very process: no TypeScript to
// transpile, no second node. Without a build, or with a build older than one of the sources it was made
// from, it runs main/cli/index.ts under tsx as before, after one line on stderr that says how to build.
// PAYOUT_DESK_CLI_BUILD names another build folder (the tests and the start-up bench use it).
import { spawn } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const buildDir = resolve(process.env.PAYOUT_DESK_CLI_BUILD || join(root, 'out', 'cli'));

/** Why the build cannot be used ('' when it can): missing, or a source file changed after it was made. */
function whyNotBuilt() {
  let manifest;
  try {
    manifest = JSON.parse(readFileSync(join(buildDir, 'inputs.json'), 'utf8'));
    statSync(join(buildDir, 'index.mjs'));
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
  const { runCli } = await import(pathToFileURL(join(buildDir, 'index.mjs')).href);
  process.exitCode = await runCli(process.argv.slice(2));
} else {
  process.stderr.write(`payout-desk: ${why}; running the sources (slower start). Build it with: npm run build:cli\n`);
  runFromSources();
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
