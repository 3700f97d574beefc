// Crash test: a child process submits a batch of 300 and is killed with SIGKILL at 10 random moments,
// restarted each time. At the end the sandbox holds every id exactly once and the journal's status of
// every row matches the sandbox.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { journalPath } from '../../../main/engine';
import { openJournal } from '../../../main/journal';
import type { SandboxHandle } from '../../../sandbox/index';
import { FileKeyStore } from './fixtures/file-key-store';
import { createDesk, payoutRows, sandboxConfig, startSandbox } from './setup';

const CHILD = join(import.meta.dirname, 'fixtures', 'crash-child.ts');
const KILLS = 10;

let sandbox: SandboxHandle | undefined;
let home: string | undefined;
let child: ChildProcess | undefined;
afterEach(async () => {
  child?.kill('SIGKILL');
  await sandbox?.close();
  if (home) rmSync(home, { recursive: true, force: true });
});

function runChild(args: string[]): { proc: ChildProcess; started: Promise<void>; exited: Promise<{ code: number | null; out: string; err: string }> } {
  const proc = spawn(process.execPath, ['--import', 'tsx', CHILD, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  let markStarted: () => void = () => undefined;
  const started = new Promise<void>((resolve) => (markStarted = resolve));
  proc.stdout!.on('data', (d: Buffer) => {
    out += d.toString();
    if (out.includes('STARTED')) markStarted();
  });
  proc.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<{ code: number | null; out: string; err: string }>((resolve) => proc.on('exit', (code) => resolve({ code, out, err })));
  return { proc, started, exited };
}

describe('crash test', () => {
  it('survives 10 SIGKILLs: every id stored once, journal matches the sandbox', { timeout: 240_000 }, async () => {
    // Latency keeps requests on the wire when the kill lands.
    sandbox = await startSandbox(sandboxConfig({ rateLimitPerSecond: 40, faults: { latencyMs: 5, latencyJitterMs: 60, seed: 7 } }));
    home = mkdtempSync(join(tmpdir(), 'desk-crash-'));
    const desk = await createDesk({ baseUrl: sandbox.url, sandbox, home, keyStore: new FileKeyStore(join(home, 'keys.json')), rateLimitPerSec: 40 });
    await desk.dispose();
    const rows = payoutRows(300, 'crash');
    const rowsFile = join(home, 'rows.json');
    writeFileSync(rowsFile, JSON.stringify(rows));
    const args = [home, rowsFile, 'crash-batch'];

    const killedAfterMs: number[] = [];
    for (let i = 0; i < KILLS; i++) {
      const run = runChild(args);
      child = run.proc;
      const early = i % 4 === 3; // some kills land during start-up and recovery, the rest while sending
      if (!early) await run.started;
      const delay = Math.floor(Math.random() * (early ? 900 : 700));
      await new Promise((r) => setTimeout(r, delay));
      run.proc.kill('SIGKILL');
      const exit = await run.exited;
      expect(exit.out).not.toContain('DONE');
      killedAfterMs.push(delay);
    }
    const last = runChild(args);
    child = last.proc;
    const result = await last.exited;
    expect(result.err).toBe('');
    expect(result.out).toContain('DONE');

    const state = sandbox.state();
    const stored = state.payouts.filter((p) => p.idPayout.startsWith('crash-'));
    expect(stored).toHaveLength(300);
    expect(new Set(stored.map((p) => p.idPayout))).toEqual(new Set(rows.map((r) => r.idPayout)));

    let resolvedByGet = 0;
    const journal = openJournal(journalPath(home, desk.profileId));
    try {
      const bySandbox = new Map(stored.map((p) => [p.idPayout, p.status as string]));
      const mismatches = journal.batchPayments('crash-batch').filter((p) => p.status !== bySandbox.get(p.id));
      expect(mismatches).toEqual([]);
      expect(journal.batchPayments('crash-batch')).toHaveLength(300);
      expect(journal.verifyAudit().ok).toBe(true);
      // Rows whose first gateway observation came from a GET: a SENDING row resolved after a kill.
      resolvedByGet = journal.batchPayments('crash-batch').filter((p) => journal.timeline('payout', p.id).find((e) => e.source !== 'local')?.source === 'poll').length;
    } finally {
      journal.close();
    }
    const attempts = Object.values(state.createAttempts.payouts);
    console.log(`crash test: killed after ${killedAfterMs.join(', ')} ms; ${attempts.reduce((a, b) => a + b, 0)} create attempts, ${attempts.filter((n) => n > 1).length} ids sent more than once (409 on repeats), ${resolvedByGet} SENDING rows resolved by GET after a kill`);
  });
});
