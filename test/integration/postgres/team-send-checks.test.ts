// `team send --file` checks a file exactly as `batch submit` does (issue 24): before, it parsed the CSV itself
// and called the engine, so a file with no id column sent twice was paid twice without a word, and no funding,
// journal or bank-details check ran. Now the file goes through the batches service the screen calls: invalid
// rows refuse it, and the "file already submitted" warning (like every warning) needs --confirm-warnings.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { runCli } from '../../../main/cli/index';
import { MemoryKeyStore } from '../../../main/keys/key-store';
import type { SandboxHandle } from '../../../sandbox/index';
import { sandboxConfig, startSandbox } from '../engine/setup';
import { freshDatabase } from './cluster';

let dbUrl: string;
let sandbox: SandboxHandle;
beforeAll(async () => {
  dbUrl = await freshDatabase(inject('postgresUrl'));
  sandbox = await startSandbox(sandboxConfig());
});
afterAll(async () => {
  await sandbox?.close();
});

const home = mkdtempSync(join(tmpdir(), 'desk-team-send-'));
const keyStore = new MemoryKeyStore();

async function cli(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(['--home', home, ...args], { keyStore, io: { stdout: (t) => void (out += t), stderr: (t) => void (err += t) } });
  return { code, out, err };
}

async function teamBatches(): Promise<{ id: string; sha256: string }[]> {
  const client = new pg.Client({ connectionString: dbUrl });
  await client.connect();
  try {
    return (await client.query('SELECT id, sha256 FROM batches ORDER BY created_at')).rows as { id: string; sha256: string }[];
  } finally {
    await client.end();
  }
}

const paidTo = (account: string) => sandbox.state().payouts.filter((p) => p.accountNumber === account).length;

// No idPayout column: every submission gets fresh ids, so only the file's digest can tell it was sent before.
const file = join(home, 'suppliers.csv');
writeFileSync(file, 'amount,currencyCode,accountName,accountNumber,paymentOperatorCode,emailAddress\n12.50,EUR,Jane Doe,DE89370400440532013000,EU_SEPA,jane@example.com\n7.25,EUR,John Roe,FR1420041010050500013M02606,EU_SEPA,john@example.com\n');

describe('team send --file checks the file as batch submit does', { timeout: 120_000 }, () => {
  it('sends a valid file once', async () => {
    expect((await cli('sandbox-setup', '--url', sandbox.url)).code).toBe(0);
    expect((await cli('profiles', 'team', 'set', 'sandbox', '--url', dbUrl, '--tls', 'disable')).code).toBe(0);
    const sent = await cli('team', 'send', '--file', file, '--timeout', '60');
    expect(sent.err).toBe('');
    expect(sent.out).toMatch(/suppliers\.csv: 2 rows, all valid; SHA-256 [0-9a-f]{64}/);
    expect(sent.out).toContain('All sent and final.');
    expect(paidTo('DE89370400440532013000')).toBe(1);
  });

  it('refuses the same file again until its warning is confirmed: nothing is stored or paid twice unseen', async () => {
    const again = await cli('team', 'send', '--file', file, '--timeout', '5');
    expect(again.code).toBe(1);
    expect(again.err).toContain('suppliers.csv: 1 warning needs --confirm-warnings');
    expect(again.err).toMatch(/file: FILE_ALREADY_SUBMITTED - This exact file .* was submitted before/);
    expect(again.err).toContain('nothing was sent');
    expect(await teamBatches()).toHaveLength(1);
    expect(paidTo('DE89370400440532013000')).toBe(1);

    // A person who means it says so, as with batch submit.
    const confirmed = await cli('team', 'send', '--file', file, '--confirm-warnings', '--timeout', '60');
    expect(confirmed.err).toBe('');
    expect(confirmed.out).toMatch(/2 rows, all valid, 1 warning confirmed/);
    expect(await teamBatches()).toHaveLength(2);
    expect(paidTo('DE89370400440532013000')).toBe(2);
  });

  it('refuses a file with an invalid row, naming it, and stores nothing', async () => {
    const bad = join(home, 'bad.csv');
    writeFileSync(bad, 'amount,currencyCode,accountName,accountNumber,paymentOperatorCode,emailAddress\n12.505,EUR,Ann Lee,DE89370400440532013000,EU_SEPA,ann@example.com\n');
    const refused = await cli('team', 'send', '--file', bad, '--timeout', '5');
    expect(refused.code).toBe(1);
    expect(refused.err).toContain('bad.csv: 1 of 1 row is invalid');
    expect(refused.err).toMatch(/row 2, column "amount": AMOUNT_PRECISION/);
    expect(await teamBatches()).toHaveLength(2);
  });

  it('joins a batch another desk stored under the agreed id only when it holds the same file', async () => {
    const [first] = await teamBatches();
    const other = join(home, 'other.csv');
    writeFileSync(other, 'amount,currencyCode,accountName,accountNumber,paymentOperatorCode,emailAddress\n3.00,EUR,Ann Lee,DE89370400440532013000,EU_SEPA,ann@example.com\n');
    const refused = await cli('team', 'send', '--file', other, '--batch', first!.id, '--timeout', '5');
    expect(refused.code).toBe(2);
    expect(refused.err).toContain(`Batch ${first!.id} is already in the team journal with another file`);
    const joined = await cli('team', 'send', '--file', file, '--batch', first!.id, '--timeout', '30');
    expect(joined.err).toBe('');
    expect(joined.out).toContain(`Batch ${first!.id} is already in the team journal (another desk submitted it)`);
    expect(await teamBatches()).toHaveLength(2);
    expect(paidTo('DE89370400440532013000')).toBe(2);
  });
});
