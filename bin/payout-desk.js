#!/usr/bin/env node
// The `payout-desk` command: runs main/cli/index.ts under tsx (TypeScript without a build step), passing
// arguments, stdio and the exit code straight through.
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
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
