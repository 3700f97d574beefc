// What most CLI tests start from: a profile "Sandbox EU" on a running sandbox, its key made in the test's
// keychain and registered with the sandbox, polling every second (default 10 s) so payouts reach their
// final statuses quickly.
import axios from 'axios';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { createAppContext } from '../../../main/context';
import type { KeyStore } from '../../../main/keys/key-store';

type Cli = (...args: string[]) => Promise<{ code: number }>;

/** Adds the profile through the CLI and returns its id ("sandbox-eu"). */
export async function addSandboxProfile(cli: Cli, home: string, keyStore: KeyStore, sandboxUrl: string): Promise<string> {
  expect((await cli('profiles', 'add', '--name', 'Sandbox EU', '--base-url', sandboxUrl, '--merchant-code', 'DEMO-MERCHANT')).code).toBe(0);
  expect((await cli('keys', 'generate', '--bits', '2048')).code).toBe(0);
  const pemFile = join(home, 'public.pem');
  expect((await cli('keys', 'export-public', '--out', pemFile)).code).toBe(0);
  await axios.post(`${sandboxUrl}/_sandbox/merchants/DEMO-MERCHANT/keys`, readFileSync(pemFile, 'utf8'), { headers: { 'Content-Type': 'text/plain' } });
  const ctx = createAppContext({ home, keyStore });
  ctx.profiles.update('sandbox-eu', { pollIntervalSecs: 1 });
  ctx.close();
  return 'sandbox-eu';
}
