// The CLI's wording (issue 26, item 12): a count of one takes the singular, a batch whose sending finished is not
// said to have "ended" while payouts still wait, `team send` does not say its batches' lines twice in a row, and a
// refusal for want of an unlocked person names --as, the CLI's way, not the screen's "unlock".
import { describe, expect, it } from 'vitest';
import type { BatchView } from '../../../contract/api';
import { outcome, summaryLines } from '../../../main/cli/batch';
import type { CliDeps, CliDesk } from '../../../main/cli/deps';
import { lockedInCliTerms } from '../../../main/cli/dual-control';
import { describeError } from '../../../main/cli/index';
import { plural } from '../../../main/cli/shared';
import { SettledLines } from '../../../main/cli/team-desk';
import { DeskError } from '../../../main/desk/services';

function batch(progress: Partial<BatchView['progress']>, finishedAt: string | null = null): BatchView {
  return {
    id: 'b-1',
    profileId: 'p',
    fileName: 'one.csv',
    sha256: 'a'.repeat(64),
    createdAt: '2024-05-31T10:00:00.000Z',
    finishedAt,
    totals: [{ money: { amount: '10.00', currencyCode: 'EUR' }, count: 1 }],
    progress: {
      batchId: 'b-1', state: 'COMPLETED', total: 1, done: 1, failed: 0, pending: 0, sent: 1, ratePerSec: 0, etaSeconds: null, stateWord: 'COMPLETED', stateReason: null,
      ...progress,
    },
  };
}

const noDesk = {} as CliDesk;
function fakeDeps(): CliDeps & { code: number } {
  const deps = { code: 0, setExitCode: (c: number) => void (deps.code = c), json: () => false };
  return deps as unknown as CliDeps & { code: number };
}

describe('counts', () => {
  it('a count of one takes the singular, any other the plural', () => {
    expect([plural(0, 'row'), plural(1, 'row'), plural(2, 'row'), plural(1, 'policy version'), plural(3, 'person', 'people')]).toEqual(['0 rows', '1 row', '2 rows', '1 policy version', '3 people']);
    expect(plural(100_000, 'payout')).toBe('100,000 payouts');
  });

  it('a batch of one payout says "1 row" and "1 payout"', async () => {
    const lines = summaryLines(batch({}));
    expect(lines).toContain('  1 row: 1 sent, 1 final, 0 failed, 0 pending');
    expect(lines.join('\n')).toMatch(/EUR\s+10\.00 {2}\(1 payout\)/);
    expect(lines.join('\n')).not.toMatch(/\b1 (rows|payouts)\b/);
    expect(await outcome(fakeDeps(), noDesk, batch({}), true)).toEqual(['Done: 1 payout, final and successful.']);
    expect((await outcome(fakeDeps(), noDesk, batch({ total: 3, done: 3, pending: 0 }), true))[0]).toBe('Done: all 3 payouts final and successful.');
  });

  it('one payout failed, pending or tracked after a cancel: singular noun and verb', async () => {
    const failed = fakeDeps();
    expect((await outcome(failed, noDesk, batch({ failed: 1 }), true))[0]).toBe('Done: 1 of 1 payout failed or was refused; see "batch export b-1".');
    expect(failed.code).toBe(1);
    expect((await outcome(fakeDeps(), noDesk, batch({ total: 4, done: 4, failed: 3 }), true))[0]).toMatch(/^Done: 3 of 4 payouts failed or were refused;/);
    expect((await outcome(fakeDeps(), noDesk, batch({ state: 'RUNNING', done: 0, pending: 1, stateReason: 'gateway unreachable' }), true))[0]).toBe('Stopped waiting with 1 payout not final: gateway unreachable.');
    expect((await outcome(fakeDeps(), noDesk, batch({ state: 'RUNNING', done: 0, pending: 1 }), false))[0]).toBe('Stored; 1 payout not final yet.');
    expect((await outcome(fakeDeps(), noDesk, batch({ state: 'CANCELLED', done: 0, pending: 1 }), true))[0]).toBe('Cancelled: 1 payout already at the gateway is still tracked.');
  });
});

describe('a batch whose sending finished', () => {
  const at = '2024-05-31T10:05:00.000Z';

  it('is not said to have ended while payouts still wait for their final status', () => {
    const sent = summaryLines(batch({ state: 'COMPLETED', total: 2, done: 1, pending: 1, stateWord: 'SENT' }, at))[1];
    expect(sent).toBe(`  created 2024-05-31T10:00:00.000Z, sending finished ${at}; file SHA-256 ${'a'.repeat(64)}`);
    expect(sent).not.toContain('ended');
    expect(summaryLines(batch({ state: 'CANCELLED', total: 2, done: 1, pending: 1 }, at))[1]).toContain(`, sending cancelled ${at};`);
  });

  it('has ended once every payout is final, and says nothing while it still sends', () => {
    expect(summaryLines(batch({}, at))[1]).toContain(`, ended ${at};`);
    expect(summaryLines(batch({ state: 'RUNNING', done: 0, pending: 1 }))[1]).toBe(`  created 2024-05-31T10:00:00.000Z; file SHA-256 ${'a'.repeat(64)}`);
  });
});

describe('team send', () => {
  it('prints the batches\' lines while waiting only when they changed, and does not repeat them when it stops', () => {
    let now = 0;
    const said = new SettledLines(() => now, 5_000);
    const lines = ['b-1: RUNNING, 1/2 sent, 0 final, 0 failed'];
    expect(said.progress(lines)).toEqual([]); // too soon
    now = 6_000;
    expect(said.progress(lines)).toEqual(lines);
    now = 12_000;
    expect(said.progress(lines)).toEqual([]); // the same again: not printed
    expect(said.closing(lines, 'Stopped before all were final; the other desks of the team carry on.')).toEqual(['Stopped before all were final; the other desks of the team carry on.']);
    const done = ['b-1: COMPLETED, 2/2 sent, 2 final, 0 failed'];
    expect(said.closing(done, 'All sent and final.')).toEqual([...done, 'All sent and final.']);
  });

  it('a run that never printed progress closes with the lines once', () => {
    const said = new SettledLines(() => 0);
    expect(said.closing(['b-1: COMPLETED, 1/1 sent, 1 final, 0 failed'], 'All sent and final.')).toEqual(['b-1: COMPLETED, 1/1 sent, 1 final, 0 failed', 'All sent and final.']);
  });
});

describe('a refusal for want of an unlocked person', () => {
  const AS = '--as <person> and their passphrase (--passphrase-env or --passphrase-file)';

  it('names --as, not the screen\'s unlock', () => {
    expect(lockedInCliTerms('Dual control is on for this profile: unlock as a preparer first; nothing was sent')).toBe(`Dual control is on for this profile: name a preparer with ${AS}; nothing was sent`);
    expect(lockedInCliTerms('Dual control is on for this profile: unlock as a approver first')).toBe(`Dual control is on for this profile: name an approver with ${AS}`);
    expect(lockedInCliTerms('Dual control is on for this profile: keys generate needs an unlocked admin; unlock first')).toBe(`Dual control is on for this profile: keys generate needs an admin: name one with ${AS}`);
    expect(lockedInCliTerms('Nobody is unlocked at this desk: unlock first to change roles')).toBe(`Nobody is unlocked at this desk: to change roles, name who acts with ${AS}`);
  });

  it('is what the CLI prints for the desk\'s LOCKED error, and only for it', () => {
    expect(describeError(new DeskError('LOCKED', 'Dual control is on for this profile: unlock as a sender first; nothing was sent'))).toEqual({ code: 'LOCKED', message: `Dual control is on for this profile: name a sender with ${AS}; nothing was sent` });
    expect(describeError(new DeskError('NOT_ALLOWED', 'unlock as a sender first')).message).toBe('unlock as a sender first');
  });
});
