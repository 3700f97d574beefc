// Crash test: a child process submits a batch of 300 and is killed with SIGKILL 10 times, restarted
// each time: at random moments (during start-up and recovery, or a while after it started) and, so that
// some kills surely land mid-send, the instant one of its creates arrives at the sandbox. At the end the
// sandbox holds every id exactly once and the journal's status of every row matches the sandbox; every
// create a kill left unanswered on the wire was first read back with GET after the restart.
import { spawn, type ChildProcess } from 'node:child_process';
import diagnostics from 'node:diagnostics_channel';
import type { IncomingMessage, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { journalPath } from '../../../main/desk/profile-engine';
import { auditKeyAccount, readAuditAnchor } from '../../../main/store/sqlite/audit-seal';
import { auditKeyId } from '../../../main/audit/chain';
import { openJournal } from '../../../main/store/sqlite';
import type { SandboxHandle } from '../../../sandbox/index';
import { FileKeyStore } from './fixtures/file-key-store';
import { createDesk, payoutRows, sandboxConfig, startSandbox } from './setup';

const CHILD = join(import.meta.dirname, 'fixtures', 'crash-child.ts');
/**
 * When each kill lands. 'random': 0-700 ms after the child says STARTED; 'early': 0-900 ms after the
 * spawn (start-up, recovery); 'on-create': the moment a create of the child arrives at the sandbox,
 * which answers only after its 5-65 ms latency, so the answer can never be recorded.
 * Random kills alone rarely land mid-send: a restarted child first reads back with GET every row the
 * killed one had committed SENDING (up to 2 × the rate limit: SENDING is committed before the create
 * waits for its rate slot), which takes a second or two at 40/s, so it is mostly killed before it sends.
 */
const KILL_SCHEDULE = ['random', 'on-create', 'random', 'early', 'on-create', 'random', 'random', 'early', 'on-create', 'random'] as const;

let sandbox: SandboxHandle | undefined;
let home: string | undefined;
let child: ChildProcess | undefined;
let stopWatching: (() => void) | undefined;
afterEach(async () => {
  stopWatching?.();
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

    // Every payout request arriving at the sandbox, in order, seen from inside this process (the sandbox runs here).
    const wire: { method: string; id: string }[] = [];
    let onCreateArrival: ((idPayout: string) => void) | undefined;
    const watch = (message: unknown) => {
      const { server, request } = message as { server: Server; request: IncomingMessage };
      if (!request.url?.startsWith('/payouts/crash-') || (server.address() as AddressInfo | null)?.port !== sandbox?.port) return;
      const id = request.url.slice('/payouts/'.length);
      wire.push({ method: request.method ?? '', id });
      if (request.method === 'POST') onCreateArrival?.(id);
    };
    diagnostics.subscribe('http.server.request.start', watch);
    stopWatching = () => diagnostics.unsubscribe('http.server.request.start', watch);

    const kills: string[] = [];
    /** Per kill: creates that arrived at the sandbox while the payout stayed SENDING, i.e. left unanswered by the kill. */
    const unanswered: { id: string; killedAt: number }[][] = [];
    for (const [i, when] of KILL_SCHEDULE.entries()) {
      const run = runChild(args);
      child = run.proc;
      const since = wire.length;
      if (when === 'on-create') {
        const trigger = await new Promise<string | undefined>((resolve) => {
          const giveUp = setTimeout(() => {
            onCreateArrival = undefined;
            resolve(undefined);
          }, 20_000);
          onCreateArrival = (idPayout) => {
            onCreateArrival = undefined;
            run.proc.kill('SIGKILL');
            clearTimeout(giveUp);
            resolve(idPayout);
          };
        });
        expect(trigger, `kill ${i}: no create arrived`).toBeDefined();
        kills.push(`on-create ${trigger}`);
      } else {
        if (when === 'random') await run.started;
        const delay = Math.floor(Math.random() * (when === 'early' ? 900 : 700));
        await new Promise((r) => setTimeout(r, delay));
        kills.push(`${when} ${delay} ms`);
      }
      run.proc.kill('SIGKILL');
      const exit = await run.exited;
      expect(exit.out).not.toContain('DONE');
      const killedAt = wire.length;
      const postedThisRun = new Set(wire.slice(since).filter((r) => r.method === 'POST').map((r) => r.id));
      const between = openJournal(journalPath(home, desk.profileId));
      try {
        const left = between.unsentPayments('payout', 'crash-batch').filter((p) => p.state === 'SENDING' && postedThisRun.has(p.id));
        unanswered.push(left.map((p) => ({ id: p.id, killedAt })));
        if (when === 'on-create') expect(left.length, `kill ${i} left no create unanswered`).toBeGreaterThan(0);
      } finally {
        between.close();
      }
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
      // Sealed throughout, and the keychain's anchor never ahead of the journal, kills and all.
      const keyStore = new FileKeyStore(join(home, 'keys.json'));
      const key = Buffer.from((await keyStore.get(auditKeyAccount(journal.journalId()))) ?? '', 'base64');
      const anchor = await readAuditAnchor(keyStore, journal.journalId());
      expect(anchor).not.toBeNull();
      expect(journal.verifyAudit({ keys: new Map([[auditKeyId(key), key]]), anchor })).toMatchObject({ ok: true, problems: [] });
      // Rows whose first gateway observation came from a GET: a SENDING row resolved after a kill.
      resolvedByGet = journal.batchPayments('crash-batch').filter((p) => journal.timeline('payout', p.id).find((e) => e.source !== 'local')?.source === 'poll').length;
    } finally {
      journal.close();
    }
    const attempts = Object.values(state.createAttempts.payouts);
    console.log(
      `crash test: kills ${kills.join('; ')}; ${attempts.reduce((a, b) => a + b, 0)} create attempts, ${attempts.filter((n) => n > 1).length} ids sent more than once (409 on repeats); ` +
        `creates left unanswered per kill: ${unanswered.map((u) => u.length).join(', ')}; ${resolvedByGet} rows first seen by GET`,
    );
    // Kills landed mid-send (at least those made on a create's arrival), and each payout so left SENDING
    // was read back with GET after the restart before anything was sent for it again.
    expect(unanswered.flat().length).toBeGreaterThanOrEqual(KILL_SCHEDULE.filter((w) => w === 'on-create').length);
    for (const { id, killedAt } of unanswered.flat()) {
      expect(wire.slice(killedAt).find((r) => r.id === id)?.method, id).toBe('GET');
    }
    // Not asserted: rows "first seen by GET" (found stored after a kill). This sandbox drops a request
    // whose client is gone before its latency has passed, so a create cut off by a kill is normally not
    // stored: the GET answers 404 and the payout is sent again with the same id (still stored once).
  });
});
