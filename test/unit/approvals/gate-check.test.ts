// The approval gate's answer (gate.ts journalApprovalGate) before any approval is counted, read as the engine
// and a person read it: whether dual control was enforced, the code and the sentence shown, and the clearance a
// yes carries. Found thin by issue 25's mutation run; the control state is given as the desk would believe it.
import { afterEach, describe, expect, it } from 'vitest';
import { journalApprovalGate, manifestFromJournal, type GateControl, type GateDeps } from '../../../main/approvals/gate';
import { signApproval } from '../../../main/approvals/approval';
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

describe('approvals nobody of this desk could have given', () => {
  it('are reported once each check that meets them, never a reason to refuse; a gate with nobody to tell still answers', async () => {
    t = tempJournal();
    const told: string[][] = [];
    const { gate, repository } = gateOf(async () => control(), { onIgnored: (_subject, checks) => void told.push(checks.map((c) => c.status)) });
    await preparedPayout('quiet', repository);
    expect((await gate.check({ kind: 'payout', id: 'quiet' })).ok).toBe(true);
    expect(told).toEqual([]);
    const stranger = member('mallory', ['approver'], 0);
    const manifest = (await manifestFromJournal(t.journal, PROFILE, { kind: 'payout', id: 'quiet' }, 0))!;
    await repository.addApproval(signApproval(stranger.session, { id: 'forged-1', manifest, decision: 'reject', reason: 'stop it', signedAt: Date.now() }));
    expect((await gate.check({ kind: 'payout', id: 'quiet' })).ok).toBe(true);
    expect(told).toEqual([['FORGED']]);
    const nobodyToTell = gateOf(async () => control()).gate;
    expect(await nobodyToTell.check({ kind: 'payout', id: 'quiet' })).toMatchObject({ ok: true, enforced: true });
  });
});

describe('a re-send of an unknown outcome', () => {
  const alice = member('alice', ['approver'], 0);
  const rules = (approvals: number, newOrChangedPayee = 0) => ({ bands: { '*': [{ atLeast: '0', approvals }] }, newOrChangedPayee });
  const policy = (version: number, r: ReturnType<typeof rules>) => ({ profileId: PROFILE, version, rules: r, setBy: 'ada', setAt: 0, signature: 'x' });

  /** A payout Alice approved under policy 1, sent once with no answer; the policy is now 2, which wants two approvals. */
  async function approvedThenUnknown(v1 = rules(1)) {
    const state = control({ people: [paula.person, alice.person], policy: policy(2, rules(2)), policies: [policy(1, v1), policy(2, rules(2))] });
    const { gate, repository } = gateOf(async () => state);
    await preparedPayout('p1', repository);
    const manifest = (await manifestFromJournal(t.journal, PROFILE, { kind: 'payout', id: 'p1' }, 1))!;
    await repository.addApproval(signApproval(alice.session, { id: 'a-1', manifest, decision: 'approve', reason: null, signedAt: Date.now() }));
    t.journal.markSending('payout', 'p1');
    t.journal.markUnknown('payout', 'p1', 'time-out', 0);
    return { gate, repository, state };
  }

  it('goes under the policy its approvals were given under, for rows that may be at the gateway only, and says so', async () => {
    t = tempJournal();
    const { gate } = await approvedThenUnknown();
    const decision = await gate.check({ kind: 'payout', id: 'p1' }, 'resend');
    expect(decision).toMatchObject({
      ok: true, enforced: true, code: null,
      message: 'approved by 1 of 1 needed under policy version 1, which its approvals were given under: only rows that may be at the gateway already are sent again',
    });
    const row = t.journal.getPayment('payout', 'p1')!;
    expect(decision.clearance?.bodyFor(row)).toEqual(payoutFieldsOf(row));
    expect(decision.clearance?.bodyFor({ ...row, state: 'QUEUED', unknownSince: null })).toBeNull();
    // A first send rests on today's policy alone.
    expect(await gate.check({ kind: 'payout', id: 'p1' }, 'first')).toMatchObject({ ok: false, enforced: true, code: 'POLICY_CHANGED' });
    expect(await gate.check({ kind: 'payout', id: 'p1' })).toMatchObject({ ok: false, enforced: true, code: 'POLICY_CHANGED' });
  });

  it('counts the rows the payee book flags under that older policy too', async () => {
    t = tempJournal();
    const { repository, state } = await approvedThenUnknown(rules(1, 1));
    const flagged = journalApprovalGate({ journal: t.journal, repository, control: async () => state, newOrChangedPayees: () => 1 });
    expect(await flagged.check({ kind: 'payout', id: 'p1' }, 'resend')).toMatchObject({ ok: false, enforced: true, code: 'POLICY_CHANGED' });
  });
});

describe('which older policy a re-send goes under', () => {
  const alice = member('alice', ['approver'], 0);
  const policy = (version: number, approvals: number) => ({ profileId: PROFILE, version, rules: { bands: { '*': [{ atLeast: '0', approvals }] }, newOrChangedPayee: 0 }, setBy: 'ada', setAt: 0, signature: 'x' });

  async function unknownApprovedUnder(versions: number[], policies: ReturnType<typeof policy>[]) {
    const state = control({ people: [paula.person, alice.person], policy: policies.at(-1)!, policies });
    const { gate, repository } = gateOf(async () => state);
    await preparedPayout('p1', repository);
    for (const v of versions) {
      const manifest = (await manifestFromJournal(t.journal, PROFILE, { kind: 'payout', id: 'p1' }, v))!;
      await repository.addApproval(signApproval(alice.session, { id: `a-v${v}`, manifest, decision: 'approve', reason: null, signedAt: Date.now() }));
    }
    t.journal.markSending('payout', 'p1');
    t.journal.markUnknown('payout', 'p1', 'time-out', 0);
    return gate;
  }

  it('the version its approvals name, not another of the chain', async () => {
    t = tempJournal();
    const gate = await unknownApprovedUnder([2], [policy(1, 5), policy(2, 1), policy(3, 2)]);
    expect((await gate.check({ kind: 'payout', id: 'p1' }, 'resend')).message).toMatch(/under policy version 2, which its approvals/);
  });

  it('the oldest of the versions its approvals name under which they suffice, whatever order they were given in', async () => {
    t = tempJournal();
    const gate = await unknownApprovedUnder([2, 1], [policy(1, 1), policy(2, 1), policy(3, 2)]);
    expect((await gate.check({ kind: 'payout', id: 'p1' }, 'resend')).message).toMatch(/under policy version 1, which its approvals/);
  });

  it('passes over an older version under which they do not suffice, and one the chain does not hold', async () => {
    t = tempJournal();
    const strict = await unknownApprovedUnder([1, 2], [policy(1, 5), policy(2, 1), policy(3, 2)]);
    expect((await strict.check({ kind: 'payout', id: 'p1' }, 'resend')).message).toMatch(/under policy version 2, which its approvals/);
    t.dispose();
    t = tempJournal();
    const unknownVersion = await unknownApprovedUnder([1, 2], [policy(2, 1), policy(3, 2)]);
    expect((await unknownVersion.check({ kind: 'payout', id: 'p1' }, 'resend')).message).toMatch(/under policy version 2, which its approvals/);
  });
});

describe("a rejection this desk kept a copy of", () => {
  const alice = member('alice', ['approver'], 0);
  const bob = member('bob', ['approver'], 0);

  it('refuses when deleted from the store, and the refusal says it holds by the kept copy; a rejection still stored says nothing of copies', async () => {
    t = tempJournal();
    const state = control({ people: [paula.person, alice.person, bob.person] });
    const repository = new SqliteDualControlRepository(t.journal);
    await preparedPayout('p1', repository);
    const manifest = (await manifestFromJournal(t.journal, PROFILE, { kind: 'payout', id: 'p1' }, 0))!;
    const byAlice = signApproval(alice.session, { id: 'no-alice', manifest, decision: 'reject', reason: 'wrong account', signedAt: Date.now() });
    const byBob = signApproval(bob.session, { id: 'no-bob', manifest, decision: 'reject', reason: 'twice', signedAt: Date.now() });
    const note = " (this desk's own copy of that rejection: it was deleted from the journal or the team database)";
    const kept = (copies: typeof byAlice[]) => journalApprovalGate({ journal: t.journal, repository, control: async () => state, keptRejections: async () => copies });
    // Both deleted from the store, both kept here: the first names Alice's, which holds by its copy.
    expect((await kept([byAlice, byBob]).check({ kind: 'payout', id: 'p1' })).message).toBe(`Nothing was sent: Alice rejected it: wrong account${note}`);
    // Alice's still stored; Bob's deleted and kept: the refusal names Alice's, which needs no copy.
    await repository.addApproval(byAlice);
    expect((await kept([byBob]).check({ kind: 'payout', id: 'p1' })).message).toBe('Nothing was sent: Alice rejected it: wrong account');
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

// The question a move of a scheduled run asks first (engine.moveScheduled): is the subject still what its preparer
// signed? Found unreached by the full mutation run of 2026-11-29.
describe('whether a subject is still as its preparer signed it', () => {
  it('says nothing is wrong when dual control is provably off', async () => {
    t = tempJournal();
    t.journal.insertPayment('payout', payout('free'));
    expect(await gateOf(async () => control({ enforced: false })).gate.preparationProblem({ kind: 'payout', id: 'free' })).toBeNull();
  });

  it('names a control chain that does not verify before anything else', async () => {
    t = tempJournal();
    const { gate } = gateOf(async () => control({ problem: { code: 'PIN_MISMATCH', message: 'the chain is not the one pinned' } }));
    expect(await gate.preparationProblem({ kind: 'payout', id: 'x' })).toBe('the chain is not the one pinned');
  });

  it('says a subject is not in the journal', async () => {
    t = tempJournal();
    expect(await gateOf(async () => control()).gate.preparationProblem({ kind: 'payout', id: 'gone' })).toBe('no payout gone in the journal');
  });

  it('holds for a subject as prepared, and names a row rewritten in the journal since', async () => {
    t = tempJournal();
    const { gate, repository } = gateOf(async () => control());
    await preparedPayout('p-1', repository);
    expect(await gate.preparationProblem({ kind: 'payout', id: 'p-1' })).toBeNull();
    t.journal.db.prepare("UPDATE payments SET account_number = 'DE02120300000000202051' WHERE id = 'p-1'").run();
    expect(await gate.preparationProblem({ kind: 'payout', id: 'p-1' })).toBe(
      'Nothing was sent: payout p-1 is not what Paula prepared (a row, its callback address or the preparer changed since)',
    );
  });
});

describe('a scheduled subject at the gate', () => {
  it('sends nothing before its release, with dual control on or off, and says when it leaves', async () => {
    t = tempJournal();
    const at = Date.now() + 3_600_000;
    t.journal.insertPayment('payout', payout('later', { schedule: { at, zone: 'UTC', local: new Date(at).toISOString().slice(0, 16) } }));
    for (const enforced of [true, false]) {
      const decision = await gateOf(async () => control({ enforced })).gate.check({ kind: 'payout', id: 'later' });
      expect(decision).toMatchObject({ ok: false, enforced: true, code: 'NOT_DUE', verdict: null });
      expect(decision.message).toMatch(/^Nothing was sent: payout later is scheduled for .* UTC and does not leave before then$/);
    }
  });
});
