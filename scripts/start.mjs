// `npm start`: builds the app and launches it in Electron. Where the Electron binary could not be
// installed (its download is blocked on some build machines), it says so and points to the tests.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const electronDir = join('node_modules', 'electron');
const pathFile = join(electronDir, 'path.txt');
const findBinary = () => (existsSync(pathFile) ? join(electronDir, 'dist', readFileSync(pathFile, 'utf8').trim()) : null);

// package.json keeps electron's install script off (allowScripts) so `npm install` succeeds offline;
// fetch the binary here, on first start, where the network allows it.
let binary = findBinary();
if (!binary || !existsSync(binary)) {
  console.log('Electron binary not installed yet: trying to download it (node_modules/electron/install.js)...');
  spawnSync(process.execPath, [join(electronDir, 'install.js')], { stdio: 'inherit', timeout: 300_000 });
  binary = findBinary();
}

if (!binary || !existsSync(binary)) {
  console.error(
    [
      'Payout Desk cannot start: the Electron binary is not installed on this machine',
      '(npm could not download it; node_modules/electron/dist is missing).',
      'Everything below the Electron shell still runs under Node and Chromium:',
      '  npm test              the whole suite (lint, types, unit, integration, end-to-end)',
      '  npm run cli -- --help the command-line twin of the app',
      '  npm run sandbox       the local gateway emulator',
      'The download was tried and failed; on a machine that can reach the Electron releases, run npm start again.',
    ].join('\n'),
  );
  process.exit(1);
}

const build = spawnSync(process.execPath, ['node_modules/electron-vite/bin/electron-vite.js', 'build'], { stdio: 'inherit' });
if (build.status !== 0) process.exit(build.status ?? 1);
// better-sqlite3 is not N-API: `npm install` builds it for Node, and Electron cannot load that build.
// Rebuild the native modules for Electron's ABI (npm test rebuilds them for Node again when needed).
const deps = spawnSync(process.execPath, ['node_modules/electron-builder/cli.js', 'install-app-deps'], { stdio: 'inherit' });
if (deps.status !== 0) {
  console.error('Payout Desk cannot start: rebuilding the native modules (keytar, better-sqlite3) for Electron failed (see above).');
  process.exit(deps.status ?? 1);
}
const run = spawnSync(binary, ['.'], { stdio: 'inherit' });
process.exit(run.status ?? 0);
