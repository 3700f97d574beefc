// The profile and key commands that need no journal start without the desk (issue 26: a CLI that starts in
// ≤ 300 ms): marked startsLight, they run on the profile half of the context, and the desk's composition
// (journals, engines, services, the gateway client) is never loaded for them. One that records a security
// action still has it audited: the action itself loads the desk and writes it into the journal.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { MemoryKeyStore } from '../../../main/keys/key-store';

const keyStore = new MemoryKeyStore();
const home = mkdtempSync(join(tmpdir(), 'desk-cli-light-'));

/** main/cli/index.ts imported afresh: nothing of an earlier command is loaded. */
async function freshCli() {
  vi.resetModules();
  return import('../../../main/cli/index');
}

async function run(args: string[]) {
  const cli = await freshCli();
  let out = '';
  let err = '';
  const code = await cli.runCli(['--home', home, ...args], { keyStore, io: { stdout: (t) => void (out += t), stderr: (t) => void (err += t) } });
  return { code, out, err, deskLoaded: cli.cliCompositionLoaded() };
}

describe('light CLI commands', () => {
  beforeAll(async () => {
    expect((await run(['profiles', 'add', '--name', 'Shop', '--base-url', 'http://127.0.0.1:9', '--merchant-code', 'M'])).code).toBe(0);
    expect((await run(['keys', 'generate', '--bits', '2048'])).code).toBe(0);
  });
  beforeEach(() => vi.resetModules());

  it.each([
    [['profiles', 'list'], 'Shop'],
    [['profiles', 'show'], 'merchantCode: M'],
    [['profiles', 'use', 'shop'], 'Current profile: shop'],
    [['keys', 'list'], 'active'],
    [['keys', 'fingerprint'], 'SHA-256'],
    [['keys', 'export-public'], 'BEGIN PUBLIC KEY'],
    [['keys', 'letter'], 'M'],
    [['keys', 'secret', 'status'], 'not stored'],
  ])('%j answers without loading the desk', async (args, shown) => {
    const r = await run(args);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out).toContain(shown);
    expect(r.deskLoaded).toBe(false);
  });

  it('a desk command loads the desk', async () => {
    const r = await run(['payouts', 'list']);
    expect(r.code).toBe(0);
    expect(r.deskLoaded).toBe(true);
  });

  it('profiles add is light, yet its audit entry is written: the action loads the desk and reaches the journal', async () => {
    const added = await run(['profiles', 'add', '--name', 'Second shop', '--base-url', 'http://127.0.0.1:9', '--merchant-code', 'M2']);
    expect(added.code).toBe(0);
    expect(added.deskLoaded).toBe(true);
    const audit = await run(['--json', '--profile', 'second-shop', 'audit', 'list']);
    expect(audit.code).toBe(0);
    expect(audit.out).toContain('profile.added');
  });
});
