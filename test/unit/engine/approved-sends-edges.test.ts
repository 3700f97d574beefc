// Dual control at the send (approved-sends.ts) where the gate's answer is odd: a yes with no clearance, a yes
// whose rows never cover the payout in the journal, a payout the gate is not asked about. Nothing leaves in
// any of them, and what the journal says afterwards tells a person why (found untested by issue 25's mutation run).
import { afterEach, describe, expect, it } from 'vitest';
import { ApprovedSends } from '../../../main/engine/approved-sends';
import type { StatusChangedEvent } from '../../../main/engine/events';
import { PayoutSender } from '../../../main/engine/payout-sender';
import type { ApprovalGatePort } from '../../../main/engine/ports';
import { payoutFieldsOf } from '../../../main/domain/payout';
import { payout, tempJournal, type TempJournal } from '../journal/helpers';
import { FakeGateway } from './fake-gateway';

let t: TempJournal;
afterEach(() => t?.dispose());

type Answer = Awaited<ReturnType<ApprovalGatePort['check']>>;

function sends(answer: () => Answer, gateway = new FakeGateway()) {
  const asked: { subject: { kind: string; id: string }; need: string | undefined }[] = [];
  const gate: ApprovalGatePort = {
    check: async (subject, need) => {
      asked.push({ subject, need });
      return answer();
    },
  };
  const events: StatusChangedEvent[] = [];
  const sender = new PayoutSender({
    journal: t.journal, gateway, finalStatuses: ['SUCCESS'], pollIntervalMs: 1_000, backoff: { baseMs: 1, capMs: 2 },
    now: () => 5_000, onStatus: () => undefined, onConnection: () => undefined, random: () => 0,
  });
  const approved = new ApprovedSends({ journal: t.journal, gate, sender, now: () => 5_000, onStatus: (e) => events.push(e) });
  return { approved, asked, events, gateway };
}

const yesFor = (bodyFor: (row: Parameters<NonNullable<Answer['clearance']>['bodyFor']>[0]) => ReturnType<NonNullable<Answer['clearance']>['bodyFor']>): Answer => ({
  ok: true, enforced: true, code: null, message: 'approved', verdict: { requirement: { required: 1 }, approvedBy: ['alice'] }, clearance: { stillValid: () => true, bodyFor },
});

describe('a yes whose approved rows never cover the payout in the journal', () => {
  it('is asked three times, then the payout is held with the reason and nothing is sent', async () => {
    t = tempJournal();
    t.journal.insertPayment('payout', payout('drift'));
    const s = sends(() => yesFor(() => null));
    expect(await s.approved.sendPayout('drift', new AbortController().signal)).toBe('not-unsent');
    expect(s.asked).toHaveLength(3);
    expect(s.asked.every((a) => a.need === 'first')).toBe(true);
    expect(t.journal.getPayment('payout', 'drift')).toMatchObject({ state: 'HELD', lastError: 'Nothing was sent: the approvals cover another payout than the one in the journal now' });
    expect(t.journal.listAudit(10).filter((e) => e.action === 'payout.held').map((e) => e.actor)).toEqual(['approvals']);
    expect(s.gateway.createCalls.size).toBe(0);
  });

  it('a payout of unknown outcome is not held but stays UNKNOWN, re-sends refused, read with GET', async () => {
    t = tempJournal();
    t.journal.insertPayment('payout', payout('maybe'));
    t.journal.markSending('payout', 'maybe');
    t.journal.markUnknown('payout', 'maybe', 'time-out', 0);
    const s = sends(() => yesFor(() => null));
    expect(await s.approved.sendPayout('maybe', new AbortController().signal)).toBe('not-unsent');
    expect(s.asked.map((a) => a.need)).toEqual(['resend', 'resend', 'resend']);
    expect(t.journal.getPayment('payout', 'maybe')).toMatchObject({ state: 'UNKNOWN', lastError: 'not sent again: Nothing was sent: the approvals cover another payout than the one in the journal now' });
    expect(t.journal.resendAllowed('payout', 'maybe')).toBe(false);
    expect(s.gateway.createCalls.size).toBe(0);
  });

  it('a yes that went stale while the payout waited is asked again, not counted as uncovered', async () => {
    t = tempJournal();
    t.journal.insertPayment('payout', payout('stale'));
    let answers = 0;
    // Three stale yeses (none covers: stillValid false), then a good one: sent on the fourth ask.
    const s = sends(() => (++answers <= 3 ? { ...yesFor(() => null), clearance: { stillValid: () => false, bodyFor: () => null } } : yesFor((row) => payoutFieldsOf(row))));
    expect(await s.approved.sendPayout('stale', new AbortController().signal)).toBe('accepted');
    expect(s.asked).toHaveLength(4);
    expect(s.gateway.createCalls.get('stale')).toBe(1);
  });
});

describe('a refusal of a payout whose send was interrupted', () => {
  it('sends nothing: the payout is not read back and re-sent behind the gate, it stays of unknown outcome', async () => {
    t = tempJournal();
    t.journal.insertPayment('payout', payout('cut'));
    t.journal.markSending('payout', 'cut');
    const s = sends(() => ({ ok: false, enforced: true, code: 'MISSING_APPROVALS', message: 'needs 1 approval', verdict: null }));
    expect(await s.approved.sendPayout('cut', new AbortController().signal)).toBe('not-unsent');
    expect(s.asked).toEqual([{ subject: { kind: 'payout', id: 'cut' }, need: 'resend' }]);
    expect(s.gateway.createCalls.size).toBe(0);
    expect(t.journal.getPayment('payout', 'cut')).toMatchObject({ state: 'UNKNOWN', lastError: 'not sent again: needs 1 approval; it may be at the gateway already, so it is read with GET until the gateway answers' });
    expect(t.journal.resendAllowed('payout', 'cut')).toBe(false);
  });
});

describe('a yes with no clearance', () => {
  it('is a refusal: the payout is held with the reason and the refusal audited', async () => {
    t = tempJournal();
    t.journal.insertPayment('payout', payout('bare'));
    const s = sends(() => ({ ok: true, enforced: true, code: null, message: 'approved', verdict: null }));
    expect(await s.approved.sendPayout('bare', new AbortController().signal)).toBe('not-unsent');
    expect(t.journal.getPayment('payout', 'bare')).toMatchObject({ state: 'HELD', lastError: 'the approval gate gave no clearance' });
    expect(s.events).toEqual([{ kind: 'payout', id: 'bare', status: 'HELD', previousStatus: 'QUEUED', final: false, source: 'local', observedAt: 5_000, batchId: null }]);
    expect(t.journal.listAudit(10).filter((e) => e.action === 'payout.held').map((e) => e.actor)).toEqual(['approvals']);
    expect(t.journal.listAudit(10).filter((e) => e.action === 'approval.refused').map((e) => e.details)).toEqual([
      { kind: 'payout', code: null, message: 'approved', required: null, approvedBy: [] },
    ]);
  });

  it('for a batch, the refusal says so', async () => {
    t = tempJournal();
    const s = sends(() => ({ ok: true, enforced: true, code: null, message: 'approved', verdict: null }));
    expect(await s.approved.batchClearance('b-1', 'resend')).toEqual({ refusal: 'the approval gate gave no clearance' });
    expect(s.asked).toEqual([{ subject: { kind: 'batch', id: 'b-1' }, need: 'resend' }]);
  });
});

describe('a payout the gate is not asked about', () => {
  it('one not in the journal is an error that names it', async () => {
    t = tempJournal();
    const s = sends(() => yesFor(() => null));
    await expect(s.approved.sendPayout('nowhere', new AbortController().signal)).rejects.toThrow('payout nowhere is not in the journal');
    expect(s.asked).toEqual([]);
  });

  it('one already settled goes to the sender as it is, which sends nothing', async () => {
    t = tempJournal();
    t.journal.insertPayment('payout', payout('done'));
    t.journal.recordObservation('payout', 'done', { status: 'SUCCESS', source: 'poll', isFinal: true });
    const s = sends(() => yesFor(() => null));
    expect(await s.approved.sendPayout('done', new AbortController().signal)).toBe('not-unsent');
    expect(s.asked).toEqual([]);
    expect(s.gateway.createCalls.size).toBe(0);
  });
});

describe("a batch's row asked to leave on its own", () => {
  it('is never sent outside its batch run, even with the gate saying yes: a batch id written on a single payout does not skip the gate', async () => {
    t = tempJournal();
    t.journal.insertPayment('payout', payout('single'));
    t.journal.createBatch({ id: 'some-batch', fileName: 'run.csv', sha256: 'h', rows: [payout('row-1')] });
    // Someone with the journal file puts a batch id on it, so a person's "release" would ask nobody.
    t.journal.db.prepare(`UPDATE payments SET batch_id = 'some-batch' WHERE id = 'single'`).run();
    const s = sends(() => yesFor((row) => payoutFieldsOf(row)));
    expect(await s.approved.sendPayout('single', new AbortController().signal)).toBe('not-unsent');
    expect(s.gateway.createCalls.size).toBe(0);
    expect(s.asked).toEqual([]);
  });
});
