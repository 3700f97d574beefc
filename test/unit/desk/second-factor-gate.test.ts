// When the second factor is asked, through the services that sign (dual-control decide, admin changes, payee
// approvals), with a clock the test moves: on LIVE's default policy an approval needs one, a person who set one
// up is always asked, the policy's switch asks everyone for approvals and admin changes, and one code covers the
// person's actions at this desk for five minutes.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createAppContext, type AppContext } from '../../../main/context';
import { adminFor, dualControlService, type DualControlService } from '../../../main/desk/dual-control';
import { createDeskEvents } from '../../../main/desk/events';
import { payeeService } from '../../../main/desk/payees';
import { createDeskRuntime, type DeskRuntime } from '../../../main/desk/runtime';
import { SECOND_FACTOR_COVERS_MS } from '../../../main/desk/second-factor-gate';
import { MemoryKeyStore } from '../../../main/keys/key-store';
import { silentLogger } from '../../../main/log';
import type { UnlockedSession } from '../../../main/people/key-vault';
import { MIN_KDF } from '../../../main/people/person-key';
import { codeAt, secretOfUri } from '../../../main/people/second-factor';
import { payout, sqliteJournalOf } from '../journal/helpers';

const PROFILE = 'shop';
// The desk's clock, moved by the tests; it starts at the real time, as the payout's preparation is stamped with it.
let now = Date.now();
let home: string;
let ctx: AppContext;
let rt: DeskRuntime;
let svc: DualControlService;
let ada: { id: string; session: UnlockedSession };
let bob: { id: string; session: UnlockedSession };
const payoutRef = { kind: 'payout' as const, id: 'po-1' };

async function desk(environment: 'LIVE' | 'TEST', policy: 'default' | { secondFactor: boolean; newOrChangedPayee?: number }): Promise<void> {
  now = Date.now();
  home = mkdtempSync(join(tmpdir(), 'second-factor-gate-'));
  ctx = createAppContext({ home, keyStore: new MemoryKeyStore() });
  ctx.profiles.add({ id: PROFILE, name: 'Shop', baseUrl: 'https://gateway.example.invalid', merchantCode: 'M1', environment, useDeprecatedSecret: true });
  rt = createDeskRuntime({ ctx, events: createDeskEvents(), log: silentLogger });
  svc = dualControlService(rt, { kdf: MIN_KDF, now: () => now });
  const first = await svc.addPerson(PROFILE, { name: 'Ada', passphrase: 'ada passphrase 1' });
  ada = { id: first.person.id, session: first.session };
  const enrolled = await svc.enroll(PROFILE, { name: 'Bob', passphrase: 'bob passphrase 1' });
  bob = { id: enrolled.person.id, session: enrolled.session };
  await svc.setRoles(PROFILE, bob.id, ['approver'], ada.session);
  if (policy !== 'default') await svc.setPolicy(PROFILE, { bands: { EUR: [{ atLeast: '1000', approvals: 1 }] }, newOrChangedPayee: 0, ...policy }, ada.session);
  // Ada prepared it: 1,500 EUR, above LIVE's default band.
  (await sqliteJournalOf(rt, PROFILE)).insertPayment('payout', payout('po-1', { amountMinor: 150_000, preparedBy: ada.id }));
}

afterEach(async () => {
  await rt.close();
  ctx.close();
  rmSync(home, { recursive: true, force: true });
});

/** Sets up the person's second factor as their phone would: scans, then types the code it shows. */
async function enrol(personId: string): Promise<{ secret: string; recoveryCodes: string[] }> {
  const start = await svc.secondFactor.vault.begin(personId, 'someone');
  const secret = secretOfUri(start.uri);
  const { recoveryCodes } = await svc.secondFactor.vault.confirm(personId, codeAt(secret, now));
  now += 30_000;
  return { secret, recoveryCodes };
}

const who = (p: { id: string }, name: string) => ({ id: p.id, name });

describe('second factor on approve', () => {
  it('LIVE under its default policy: an approver without one is told to set one up, and nothing is signed', async () => {
    await desk('LIVE', 'default');
    await expect(svc.decide(PROFILE, payoutRef, 'approve', null, bob.session)).rejects.toMatchObject({ code: 'SECOND_FACTOR_NOT_ENROLLED', message: expect.stringContaining('Bob needs a second factor to approve') });
    expect(await svc.listApprovals(PROFILE)).toHaveLength(0);
    // A rejection stops a payout: it asks for nothing more than the passphrase.
    await expect(svc.decide(PROFILE, payoutRef, 'reject', 'wrong payee', bob.session)).resolves.toMatchObject({ approval: { decision: 'reject' } });
  });

  it('LIVE: with a code typed in the last five minutes the approval is signed; after that a new code is asked', async () => {
    await desk('LIVE', 'default');
    const { secret } = await enrol(bob.id);
    await expect(svc.decide(PROFILE, payoutRef, 'approve', null, bob.session)).rejects.toMatchObject({ code: 'SECOND_FACTOR_REQUIRED' });
    await svc.secondFactor.verify(PROFILE, bob.session, who(bob, 'Bob'), codeAt(secret, now));
    now += SECOND_FACTOR_COVERS_MS;
    const { view } = await svc.decide(PROFILE, payoutRef, 'approve', null, bob.session);
    expect(view.verdict).toMatchObject({ ok: true, approvedBy: [bob.id] });
    now += 1;
    await expect(svc.secondFactor.require(PROFILE, who(bob, 'Bob'), (await svc.policy(PROFILE)).policy, 'approve', bob.session)).rejects.toMatchObject({ code: 'SECOND_FACTOR_REQUIRED' });
  });

  it('a wrong code does not count, and a used one is refused as a replay', async () => {
    await desk('LIVE', 'default');
    const { secret } = await enrol(bob.id);
    const code = codeAt(secret, now);
    const wrong = code === '000000' ? '111111' : '000000';
    await expect(svc.secondFactor.verify(PROFILE, bob.session, who(bob, 'Bob'), wrong)).rejects.toMatchObject({ code: 'SECOND_FACTOR_WRONG' });
    await expect(svc.decide(PROFILE, payoutRef, 'approve', null, bob.session)).rejects.toMatchObject({ code: 'SECOND_FACTOR_REQUIRED' });
    await svc.secondFactor.verify(PROFILE, bob.session, who(bob, 'Bob'), code);
    await expect(svc.secondFactor.verify(PROFILE, bob.session, who(bob, 'Bob'), code)).rejects.toMatchObject({ code: 'SECOND_FACTOR_REPLAYED' });
  });

  it('wrong codes back off as wrong passphrases do, and every try is audited', async () => {
    await desk('LIVE', 'default');
    await enrol(bob.id);
    for (let i = 0; i < 3; i += 1) await expect(svc.secondFactor.verify(PROFILE, bob.session, who(bob, 'Bob'), '999999')).rejects.toMatchObject({ code: expect.stringMatching(/SECOND_FACTOR_WRONG|SECOND_FACTOR_REPLAYED/) });
    await expect(svc.secondFactor.verify(PROFILE, bob.session, who(bob, 'Bob'), '999999')).rejects.toMatchObject({ code: 'THROTTLED', message: expect.stringContaining('wrong second-factor codes') });
    const audit = await (await rt.journalFor(PROFILE)).listAudit(50);
    expect(audit.filter((e) => e.action === 'person.second-factor-failed').length).toBeGreaterThanOrEqual(4);
  });

  it('TEST: nobody is asked until they set one up; then they are', async () => {
    await desk('TEST', { secondFactor: false });
    await expect(svc.decide(PROFILE, payoutRef, 'approve', null, bob.session)).resolves.toMatchObject({ approval: { decision: 'approve' } });
    await desk('TEST', { secondFactor: false });
    await enrol(bob.id);
    await expect(svc.decide(PROFILE, payoutRef, 'approve', null, bob.session)).rejects.toMatchObject({ code: 'SECOND_FACTOR_REQUIRED' });
  });

  it('a payee change is approved under the same rule', async () => {
    await desk('TEST', { secondFactor: true, newOrChangedPayee: 1 });
    const payees = payeeService(rt, { now: () => now, secondFactor: svc.secondFactor });
    const { secret } = await enrol(ada.id);
    await svc.secondFactor.verify(PROFILE, ada.session, who(ada, 'Ada'), codeAt(secret, now));
    const added = await payees.add(PROFILE, { name: 'Jane Doe', accountNumber: 'DE89370400440532013000', operatorCode: 'EU_SEPA', emailAddress: 'jane@example.com' }, ada.session);
    // New bank details wait for an approval.
    await payees.edit(PROFILE, added.payee.id, { accountNumber: 'FR1420041010050500013M02606' }, ada.session);
    await expect(payees.decide(PROFILE, added.payee.id, 'approve', null, bob.session)).rejects.toMatchObject({ code: 'SECOND_FACTOR_NOT_ENROLLED' });
    const bobs = await enrol(bob.id);
    await svc.secondFactor.verify(PROFILE, bob.session, who(bob, 'Bob'), codeAt(bobs.secret, now));
    await expect(payees.decide(PROFILE, added.payee.id, 'approve', null, bob.session)).resolves.toMatchObject({ inForce: true });
  });
});

describe('second factor on admin actions', () => {
  it('is asked once the policy switches it on: an admin without one can no longer change roles', async () => {
    await desk('TEST', { secondFactor: false });
    await expect(svc.setRoles(PROFILE, bob.id, ['approver', 'viewer'], ada.session)).resolves.toBeTruthy();
    await svc.setPolicy(PROFILE, { bands: {}, newOrChangedPayee: 0, secondFactor: true }, ada.session);
    expect((await svc.policy(PROFILE)).policy.rules.secondFactor).toBe(true);
    await expect(svc.setRoles(PROFILE, bob.id, ['approver'], ada.session)).rejects.toMatchObject({ code: 'SECOND_FACTOR_NOT_ENROLLED' });
    const { secret } = await enrol(ada.id);
    await expect(svc.revokePerson(PROFILE, bob.id, 'left', ada.session)).rejects.toMatchObject({ code: 'SECOND_FACTOR_REQUIRED' });
    await svc.secondFactor.verify(PROFILE, ada.session, who(ada, 'Ada'), codeAt(secret, now));
    await expect(svc.setRoles(PROFILE, bob.id, ['approver'], ada.session)).resolves.toBeTruthy();
    // Switching it off is an admin change too: it needs the code while the switch is on.
    now += SECOND_FACTOR_COVERS_MS + 1;
    await expect(svc.setPolicy(PROFILE, { bands: {}, newOrChangedPayee: 0 }, ada.session)).rejects.toMatchObject({ code: 'SECOND_FACTOR_REQUIRED' });
  });

  it('key custody and the profile\'s admin settings ask an admin who set one up for a code too', async () => {
    await desk('TEST', { secondFactor: false });
    rt.setSession(PROFILE, ada.session);
    await expect(adminFor(rt, PROFILE, 'rotating the merchant key')).resolves.toMatchObject({ id: ada.id });
    const { secret } = await enrol(ada.id);
    await expect(adminFor(rt, PROFILE, 'rotating the merchant key')).rejects.toMatchObject({ code: 'SECOND_FACTOR_REQUIRED' });
    await svc.secondFactor.verify(PROFILE, ada.session, who(ada, 'Ada'), codeAt(secret, now));
    await expect(adminFor(rt, PROFILE, 'rotating the merchant key')).resolves.toMatchObject({ id: ada.id });
  });

  it('a recovery code stands in for the app once', async () => {
    await desk('TEST', { secondFactor: true });
    const { recoveryCodes } = await enrol(ada.id);
    await svc.secondFactor.verify(PROFILE, ada.session, who(ada, 'Ada'), recoveryCodes[3]!);
    await expect(svc.setRoles(PROFILE, bob.id, ['approver', 'viewer'], ada.session)).resolves.toBeTruthy();
    await expect(svc.secondFactor.verify(PROFILE, ada.session, who(ada, 'Ada'), recoveryCodes[3]!)).rejects.toMatchObject({ code: 'SECOND_FACTOR_WRONG' });
  });
});
