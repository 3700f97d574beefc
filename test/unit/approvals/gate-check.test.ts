// The approval gate's answer (gate.ts journalApprovalGate) before any approval is counted, read as the engine
// and a person read it: whether dual control was enforced, the code and the sentence shown, and the clearance a
// yes carries. Found thin by issue 25's mutation run; the control state is given as the desk would believe it.
import { afterEach, describe, expect, it } from 'vitest';
import { journalApprovalGate, manifestFromJournal, type GateControl, type GateDeps } from '../../../main/approvals/gate';
import { defaultPolicy } from '../../../main/approvals/policy';
import { signPreparation } from '../../../main/approvals/preparation';
import { payoutFieldsOf } from '../../../main/domain/payout';
import { SqliteDualControlRepository } from '../../../main/store/sqlite/dual-control';
import { payout, tempJournal, type TempJournal } from '../journal/helpers';
import { member } from './helpers';

let t: TempJournal;
afterEach(() => t?.dispose());

const PROFILE = 'prof-1';
const paula = member('paula', ['preparer'], 0);

function control(overrides: Partial<GateControl> = {}): GateControl {
  const policy = defaultPolicy(PROFILE, 'TEST');
  return { enforced: true, scope: PROFILE, people: [paula.person], policy, policies: [], defaultPolicy: policy, chain: { fingerprint: 'AB:CD' }, problem: null, pin: null, ...overrides };
}

function gateOf(state: () => Promise<GateControl>, more: Partial<GateDeps> = {}) {
  const repository = new SqliteDualControlRepository(t.journal);
  return { gate: journalApprovalGate({ journal: t.journal, repository, control: state, ...more }), repository };
}

/** A single payout in the journal, prepared by Paula (signed as the engine's prepare hook signs at submit). */
async function preparedPayout(id: string, repository: SqliteDualControlRepository): Promise<void> {
  t.journal.insertPayment('payout', payout(id, { preparedBy: 'paula' }));
  const manifest = (await manifestFromJournal(t.journal, PROFILE, { kind: 'payout', id }, 0))!;
  await repository.addPreparation(signPreparation(paula.session, { id: `prep-${id}`, manifest, signedAt: Date.now() }));
}

describe('before any approval is counted', () => {
  it('a control chain that does not verify sends nothing, enforced, with its own code and words', async () => {
    t = tempJournal();
    const { gate } = gateOf(async () => control({ problem: { code: 'PIN_MISMATCH', message: 'the chain is not the one pinned' } }));
    expect(await gate.check({ kind: 'payout', id: 'x' })).toEqual({ ok: false, enforced: true, code: 'PIN_MISMATCH', message: 'the chain is not the one pinned', verdict: null });
  });

  it('with dual control provably off, a yes that is not enforced and sends the row as the journal holds it', async () => {
    t = tempJournal();
    t.journal.insertPayment('payout', payout('free'));
    const { gate } = gateOf(async () => control({ enforced: false }));
    const decision = await gate.check({ kind: 'payout', id: 'free' });
    expect(decision).toMatchObject({ ok: true, enforced: false, code: null, message: 'dual control is not set up on this desk', verdict: null });
    const row = t.journal.getPayment('payout', 'free')!;
    expect(decision.clearance?.bodyFor(row)).toEqual(payoutFieldsOf(row));
    expect(decision.clearance?.stillValid()).toBe(true);
  });

  it('a sender desk of a team sends nothing until its person confirmed the root, and names the root to compare', async () => {
    t = tempJournal();
    const { gate, repository } = gateOf(async () => control({ pin: { confirmed: false } }), { requireConfirmedRoot: () => true });
    await preparedPayout('team', repository);
    expect(await gate.check({ kind: 'payout', id: 'team' })).toEqual({
      ok: false, enforced: true, code: 'ROOT_UNCONFIRMED', verdict: null,
      message: "Nothing was sent: this desk has not confirmed the team's dual-control root AB:CD with the team's admin; compare it and confirm it (profiles team trust, or Settings › Team database)",
    });
    const noChain = gateOf(async () => control({ pin: null, chain: null }), { requireConfirmedRoot: () => true }).gate;
    expect((await noChain.check({ kind: 'payout', id: 'team' })).message).toContain('dual-control root  with');
    const confirmed = gateOf(async () => control({ pin: { confirmed: true } }), { requireConfirmedRoot: () => true }).gate;
    expect(await confirmed.check({ kind: 'payout', id: 'team' })).toMatchObject({ ok: true, enforced: true });
  });

  it('a single desk (no root to confirm) goes on to the approvals with no pin at all', async () => {
    t = tempJournal();
    const { gate, repository } = gateOf(async () => control({ pin: null }));
    await preparedPayout('solo', repository);
    expect(await gate.check({ kind: 'payout', id: 'solo' })).toMatchObject({ ok: true, enforced: true, code: null, message: 'no approval needed' });
    const desk = gateOf(async () => control({ pin: null }), { requireConfirmedRoot: () => false }).gate;
    expect((await desk.check({ kind: 'payout', id: 'solo' })).ok).toBe(true);
  });

  it('a subject not in the journal, or not prepared, sends nothing and says which', async () => {
    t = tempJournal();
    const { gate } = gateOf(async () => control());
    expect(await gate.check({ kind: 'payout', id: 'nope' })).toEqual({ ok: false, enforced: true, code: 'NOT_FOUND', message: 'Nothing was sent: no payout nope in the journal', verdict: null });
    t.journal.insertPayment('payout', payout('raw', { preparedBy: 'paula' }));
    expect(await gate.check({ kind: 'payout', id: 'raw' })).toEqual({ ok: false, enforced: true, code: 'NOT_PREPARED', message: 'Nothing was sent: Paula has not signed payout raw as its preparer', verdict: null });
  });

  it('approvals that cannot be checked are not there: nothing sent, the reason named', async () => {
    t = tempJournal();
    const failing = gateOf(async () => Promise.reject(new Error('keychain locked'))).gate;
    expect(await failing.check({ kind: 'payout', id: 'p' })).toEqual({ ok: false, enforced: true, code: 'CHECK_FAILED', message: 'Nothing was sent: the approvals could not be checked (keychain locked)', verdict: null });
    const odd = gateOf(async () => Promise.reject('no store')).gate;
    expect((await odd.check({ kind: 'payout', id: 'p' })).message).toBe('Nothing was sent: the approvals could not be checked (no store)');
  });
});

describe('the clearance of a yes', () => {
  it('covers the row as approved, not a row edited since, and goes stale when the approvals store changes', async () => {
    t = tempJournal();
    const { gate, repository } = gateOf(async () => control());
    await preparedPayout('cov', repository);
    const decision = await gate.check({ kind: 'payout', id: 'cov' });
    const row = t.journal.getPayment('payout', 'cov')!;
    expect(decision.clearance?.bodyFor(row)).toEqual(payoutFieldsOf(row));
    expect(decision.clearance?.bodyFor({ ...row, accountNumber: 'DE02120300000000202051' })).toBeNull();
    expect(decision.clearance?.bodyFor({ ...row, id: 'other' })).toBeNull();
    expect(decision.clearance?.stillValid()).toBe(true);
    await preparedPayout('more', repository);
    expect(decision.clearance?.stillValid()).toBe(false);
  });
});
