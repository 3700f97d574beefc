// A second decision by the same person that would not count is refused (ALREADY_DECIDED) with why and who can
// still approve, on every path that signs one: a batch's or payout's approval (the CLI, with or without a note,
// and the Approvals screen all end in the dual-control service's decide), a payee change's approval, and a
// second admin's signature of a control change. A re-approval that does count (the policy changed since) is not.
// The README's old example is reproduced: Ada (every role) prepares 1,500 EUR to a new payee under
// {"EUR" from 1000: 1, newOrChangedPayee: 1}: it needs 2 approvals and Bob is the only other approver.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAppContext, type AppContext } from '../../../main/context';
import { approvalsService } from '../../../main/desk/approvals';
import { dualControlService, type DualControlService } from '../../../main/desk/dual-control';
import { createDeskEvents } from '../../../main/desk/events';
import { payeeService } from '../../../main/desk/payees';
import { createDeskRuntime, type DeskRuntime } from '../../../main/desk/runtime';
import { MemoryKeyStore } from '../../../main/keys/key-store';
import { silentLogger } from '../../../main/log';
import type { UnlockedSession } from '../../../main/people/key-vault';
import { MIN_KDF } from '../../../main/people/person-key';
import { payout, sqliteJournalOf } from '../journal/helpers';

const PROFILE = 'shop';
let home: string;
let ctx: AppContext;
let rt: DeskRuntime;
let svc: DualControlService;
let ada: { id: string; session: UnlockedSession };
let bob: { id: string; session: UnlockedSession };
const payoutRef = { kind: 'payout' as const, id: 'po-1' };
const rules = (newOrChangedPayee: number) => ({ bands: { EUR: [{ atLeast: '1000', approvals: 1 }] }, newOrChangedPayee });

beforeEach(async () => {
  home = mkdtempSync(join(tmpdir(), 'second-approval-'));
  ctx = createAppContext({ home, keyStore: new MemoryKeyStore() });
  ctx.profiles.add({ id: PROFILE, name: 'Shop', baseUrl: 'https://gateway.example.invalid', merchantCode: 'M1', useDeprecatedSecret: true });
  rt = createDeskRuntime({ ctx, events: createDeskEvents(), log: silentLogger });
  svc = dualControlService(rt, { kdf: MIN_KDF });
  const first = await svc.addPerson(PROFILE, { name: 'Ada', passphrase: 'ada passphrase 1' });
  ada = { id: first.person.id, session: first.session };
  const enrolled = await svc.enroll(PROFILE, { name: 'Bob', passphrase: 'bob passphrase 1' });
  bob = { id: enrolled.person.id, session: enrolled.session };
  await svc.setRoles(PROFILE, bob.id, ['approver'], ada.session);
  await svc.setPolicy(PROFILE, rules(1), ada.session);
  // Ada prepared it: 1,500 EUR to a payee never paid.
  (await sqliteJournalOf(rt, PROFILE)).insertPayment('payout', payout('po-1', { amountMinor: 150_000, preparedBy: ada.id }));
});
afterEach(async () => {
  await rt.close();
  ctx.close();
  rmSync(home, { recursive: true, force: true });
});

async function enrolApprover(name: string): Promise<{ id: string; session: UnlockedSession }> {
  const { person, session } = await svc.enroll(PROFILE, { name, passphrase: `${name} passphrase 1` });
  await svc.setRoles(PROFILE, person.id, ['approver'], ada.session);
  return { id: person.id, session };
}

describe('a second approval by the same person', () => {
  it('is refused when theirs counts already, naming the one approval no one on the desk can give (the README example that got stuck)', async () => {
    const first = await svc.decide(PROFILE, payoutRef, 'approve', null, bob.session);
    expect(first.view.stillNeeded).toEqual({ more: 1, given: 1, from: [] });
    await expect(svc.decide(PROFILE, payoutRef, 'approve', null, bob.session)).rejects.toMatchObject({
      code: 'ALREADY_DECIDED',
      message: 'Bob approved this payout already and a second approval by the same person would not count; it needs 1 more approval, and no one on this desk can give the 2nd approval: grant the approver role to another person or lower the policy',
    });
    // With a note (the CLI's --reason path signs through the same decide): refused too; one approval is stored.
    await expect(svc.decide(PROFILE, payoutRef, 'approve', 'checked again', bob.session)).rejects.toMatchObject({ code: 'ALREADY_DECIDED' });
    expect((await (await rt.dualControlFor(PROFILE)).approvalsFor(payoutRef)).map((a) => a.signerId)).toEqual([bob.id]);
  });

  it('names who can still approve once another approver is there, and lets them', async () => {
    await svc.decide(PROFILE, payoutRef, 'approve', null, bob.session);
    const cy = await enrolApprover('Cy');
    await expect(svc.decide(PROFILE, payoutRef, 'approve', null, bob.session)).rejects.toMatchObject({ code: 'ALREADY_DECIDED', message: expect.stringMatching(/; it needs 1 more approval from: Cy$/) });
    const done = await svc.decide(PROFILE, payoutRef, 'approve', null, cy.session);
    expect(done.view.verdict).toMatchObject({ ok: true });
    expect(done.view.stillNeeded).toBeNull();
    // Enough approvals: a further one by either of them is refused as well.
    await expect(svc.decide(PROFILE, payoutRef, 'approve', null, cy.session)).rejects.toMatchObject({ code: 'ALREADY_DECIDED', message: 'Cy approved this payout already and a second approval by the same person would not count' });
  });

  it('is accepted when it counts: the policy changed since, which voided the first', async () => {
    await svc.decide(PROFILE, payoutRef, 'approve', null, bob.session);
    await svc.setPolicy(PROFILE, rules(0), ada.session);
    const again = await svc.decide(PROFILE, payoutRef, 'approve', null, bob.session);
    expect(again.view.verdict).toMatchObject({ ok: true, approvedBy: [bob.id] });
  });

  it('is refused after their own rejection, which stands; a second rejection is refused; a rejection after approving is taken', async () => {
    await svc.decide(PROFILE, payoutRef, 'reject', 'wrong IBAN', bob.session);
    await expect(svc.decide(PROFILE, payoutRef, 'approve', null, bob.session)).rejects.toMatchObject({ code: 'ALREADY_DECIDED', message: expect.stringMatching(/^Bob rejected this payout, and that rejection stands: an approval by them would not count/) });
    await expect(svc.decide(PROFILE, payoutRef, 'reject', 'still wrong', bob.session)).rejects.toMatchObject({ code: 'ALREADY_DECIDED' });

    (await sqliteJournalOf(rt, PROFILE)).insertPayment('payout', payout('po-2', { amountMinor: 150_000, preparedBy: ada.id }));
    await svc.decide(PROFILE, { kind: 'payout', id: 'po-2' }, 'approve', null, bob.session);
    const changedMind = await svc.decide(PROFILE, { kind: 'payout', id: 'po-2' }, 'reject', 'on second thought', bob.session);
    expect(changedMind.view.verdict.code).toBe('REJECTED');
  });
});

describe('what the screens are told', () => {
  it('approvals:status says who can still approve, with the way out named by screen', async () => {
    const approvals = approvalsService(rt, svc);
    const profile = ctx.profiles.get(PROFILE);
    const [before] = await approvals.status(profile, { subjects: [payoutRef] });
    expect(before!.stillNeeded).toEqual({ more: 2, from: [{ id: bob.id, name: 'Bob' }], text: 'needs 2 more approvals, and only Bob can give one: no one on this desk can give the 2nd approval: grant the approver role to another person (People) or lower the policy (Settings)' });
    await enrolApprover('Cy');
    const [after] = await approvals.status(profile, { subjects: [payoutRef] });
    expect(after!.stillNeeded?.text).toBe('needs 2 more approvals from: Bob, Cy');
  });
});

describe('a payee change approved twice by the same approver', () => {
  it('is refused (it was recorded and counted once before), with who can still approve', async () => {
    await svc.setPolicy(PROFILE, rules(2), ada.session);
    const cy = await enrolApprover('Cy');
    const payees = payeeService(rt);
    const added = await payees.add(PROFILE, { name: 'Grace Hopper', accountNumber: 'NL91ABNA0417164300', operatorCode: 'EU_SEPA', emailAddress: 'grace@example.com', referenceDefault: null }, ada.session);
    const change = await payees.edit(PROFILE, added.payee.id, { accountNumber: 'DE89370400440532013000' }, ada.session);
    expect(change.inForce).toBe(false);
    expect((await payees.decide(PROFILE, added.payee.id, 'approve', null, bob.session)).inForce).toBe(false);
    await expect(payees.decide(PROFILE, added.payee.id, 'approve', null, bob.session)).rejects.toMatchObject({
      code: 'ALREADY_DECIDED', message: 'Bob approved this change of Grace Hopper already and a second approval by the same person would not count; it needs 1 more approval from: Cy',
    });
    expect((await payees.decide(PROFILE, added.payee.id, 'approve', null, cy.session)).inForce).toBe(true);
  });
});

describe('a control change signed twice by the same admin', () => {
  it('is refused with ALREADY_DECIDED: another admin signs it', async () => {
    const cleo = await svc.enroll(PROFILE, { name: 'Cleo', passphrase: 'cleo passphrase 1' });
    await svc.setRoles(PROFILE, cleo.person.id, ['admin'], ada.session);
    await svc.setPolicy(PROFILE, { ...rules(1), secondAdmin: true }, ada.session);
    const proposed = await svc.setPolicy(PROFILE, rules(0), ada.session);
    await expect(svc.cosign(PROFILE, proposed.proposal!.hash, ada.session)).rejects.toMatchObject({
      code: 'ALREADY_DECIDED', message: 'Ada signed this change already and a second signature by the same person would not count: another admin signs it',
    });
    expect((await svc.cosign(PROFILE, proposed.proposal!.hash, cleo.session)).added).toBe(true);
  });
});
