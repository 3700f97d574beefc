// Recurring payouts at a desk under dual control (main/desk/recurring.ts), on a real runtime and SQLite journal: each
// date within the lead days becomes one scheduled payout prepared (signed) by the template's maker while unlocked;
// never two for one date, not after a desk stopped half way either; paused, skipped and passed dates are not paid.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAppContext, type AppContext } from '../../../main/context';
import { createCurrencyCache } from '../../../main/desk/currency-cache';
import { dualControlService } from '../../../main/desk/dual-control';
import { createDeskEvents } from '../../../main/desk/events';
import { payeeService } from '../../../main/desk/payees';
import { CLAIM_STALE_MS, recurringService, runRecurring } from '../../../main/desk/recurring';
import { createDeskRuntime, type DeskRuntime } from '../../../main/desk/runtime';
import { MemoryKeyStore } from '../../../main/keys/key-store';
import { silentLogger } from '../../../main/log';
import type { UnlockedSession } from '../../../main/people/key-vault';
import { MIN_KDF } from '../../../main/people/person-key';
import { dateIn, WEEKDAYS } from '../../../main/schedules/recurrence';
import { occurrencePayoutId } from '../../../main/schedules/recurring';

const PROFILE = 'shop';
const DAY = 86_400_000;
const ZONE = 'Europe/Berlin';
let home: string;
let ctx: AppContext;
let rt: DeskRuntime;
let ada: UnlockedSession;
let paula: UnlockedSession;
let payeeId: string;
let dc: ReturnType<typeof dualControlService>;

beforeEach(async () => {
  home = mkdtempSync(join(tmpdir(), 'recurring-'));
  ctx = createAppContext({ home, keyStore: new MemoryKeyStore() });
  ctx.profiles.add({ id: PROFILE, name: 'Shop', baseUrl: 'https://gateway.example.invalid', merchantCode: 'M1', useDeprecatedSecret: true });
  ctx.profiles.setCurrent(PROFILE);
  rt = createDeskRuntime({ ctx, events: createDeskEvents(), log: silentLogger });
  dc = dualControlService(rt, { kdf: MIN_KDF });
  ada = (await dc.addPerson(PROFILE, { name: 'Ada', passphrase: 'ada passphrase 1' })).session;
  const enrolled = await dc.enroll(PROFILE, { name: 'Paula', passphrase: 'paula passphrase 1' });
  paula = enrolled.session;
  await dc.setRoles(PROFILE, enrolled.person.id, ['preparer'], ada);
  const added = await payeeService(rt).add(PROFILE, { name: 'Landlord Ltd', accountNumber: 'NL91ABNA0417164300', operatorCode: 'EU_SEPA', emailAddress: 'rent@example.com' }, ada);
  payeeId = added.payee.id;
});
afterEach(async () => {
  await rt.close();
  ctx.close();
  rmSync(home, { recursive: true, force: true });
});

/** A weekly rule on the weekday `days` from today (in Berlin): its first date is that day. */
const weeklyIn = (days: number): { rule: string; date: string } => {
  const date = dateIn(Date.now(), ZONE, days);
  const weekday = WEEKDAYS[(new Date(`${date}T12:00:00Z`).getUTCDay() + 6) % 7]!;
  return { rule: `weekly ${weekday}`, date };
};

describe('recurring payouts under dual control', () => {
  it("makes each date within the lead days one scheduled payout, prepared by the template's maker, and never a second", async () => {
    const service = recurringService(rt, createCurrencyCache(rt));
    const profile = ctx.profiles.get(PROFILE);
    const { rule, date } = weeklyIn(3);
    rt.setSession(PROFILE, ada);
    const made = await service.add(profile, { payeeId, amount: '1250.00', currencyCode: 'EUR', reference: 'Rent {yyyy-MM-dd}', rule, timeOfDay: '09:00', zone: ZONE, leadDays: 5 });
    expect(made).toMatchObject({ state: 'ACTIVE', payeeName: 'Landlord Ltd', money: { amount: '1250.00', currencyCode: 'EUR' }, ruleText: expect.stringMatching(/^every /) });
    const payoutId = occurrencePayoutId(made.id, date);
    expect(made.occurrences).toEqual([expect.objectContaining({ date, state: 'CREATED', payoutId, when: `${date} 09:00 ${ZONE}` })]);
    // The next date is a week on, made two days before its release.
    expect(made.next).toMatchObject({ date: dateIn(Date.now(), ZONE, 10), state: 'UPCOMING' });

    const journal = await rt.journalFor(PROFILE);
    expect(await journal.getPayment('payout', payoutId)).toMatchObject({ state: 'HELD', amountMinor: 125_000, accountName: 'Landlord Ltd', reference: `Rent ${date}` });
    expect(await journal.schedule('payout', payoutId)).toMatchObject({ state: 'SCHEDULED', zone: ZONE, local: `${date}T09:00` });
    // Signed by its maker: Ada's preparation of exactly that payout.
    const preparations = await (await rt.dualControlFor(PROFILE)).preparationsFor({ kind: 'payout', id: payoutId });
    expect(preparations.map((p) => p.signerId)).toEqual([ada.personId]);

    // Looked at again, by this desk or after a restart: nothing new.
    expect(await runRecurring(rt, profile)).toEqual({ created: [], missed: [], failed: [], waiting: null });
    const rows = (await service.list(profile, { payeeId })).items;
    expect(rows).toHaveLength(1);
    expect(rows[0]!.occurrences).toHaveLength(1);
  });

  it("makes nothing while only someone else is unlocked: Paula may prepare, but not in Ada's name", async () => {
    const service = recurringService(rt, createCurrencyCache(rt));
    const profile = ctx.profiles.get(PROFILE);
    // Added while Ada is unlocked with a first date too far to make now.
    rt.setSession(PROFILE, ada);
    const { rule, date } = weeklyIn(6);
    const t = await service.add(profile, { payeeId, amount: '10.00', currencyCode: 'EUR', rule, zone: ZONE, leadDays: 5 });
    expect(t.occurrences).toEqual([]);
    rt.setSession(PROFILE, paula);
    expect(await runRecurring(rt, profile, { now: Date.now() + 2 * DAY })).toEqual({ created: [], missed: [], failed: [], waiting: null });
    rt.setSession(PROFILE, null);
    expect((await runRecurring(rt, profile, { now: Date.now() + 2 * DAY })).waiting).toMatch(/unlocked at a desk/);
    // Ada at the desk again (unlocked anew: a lock forgets her key): made.
    rt.setSession(PROFILE, await dc.unlock(PROFILE, ada.personId, 'ada passphrase 1'));
    expect((await runRecurring(rt, profile, { now: Date.now() + 2 * DAY })).created).toEqual([{ templateId: t.id, date, payoutId: occurrencePayoutId(t.id, date) }]);
  });

  it('records a date whose release passed with nobody to prepare it as missed, and pays it neither late nor twice', async () => {
    const service = recurringService(rt, createCurrencyCache(rt));
    const profile = ctx.profiles.get(PROFILE);
    rt.setSession(PROFILE, ada);
    const { rule, date } = weeklyIn(6);
    const t = await service.add(profile, { payeeId, amount: '10.00', currencyCode: 'EUR', rule, zone: ZONE, leadDays: 2 });
    rt.setSession(PROFILE, null);
    const later = Date.now() + 8 * DAY;
    expect((await runRecurring(rt, profile, { now: later })).missed).toEqual([{ templateId: t.id, date }]);
    rt.setSession(PROFILE, await dc.unlock(PROFILE, ada.personId, 'ada passphrase 1'));
    expect((await runRecurring(rt, profile, { now: later })).created).toEqual([]);
    const [view] = (await service.list(profile, {})).items;
    expect(view!.occurrences).toEqual([expect.objectContaining({ date, state: 'MISSED', payoutId: null, reason: expect.stringContaining('nobody who could prepare it') })]);
    expect(await (await rt.journalFor(PROFILE)).getPayment('payout', occurrencePayoutId(t.id, date))).toBeUndefined();
  });

  it('skips one date, refuses to skip one already made, and makes nothing while paused or once ended', async () => {
    const service = recurringService(rt, createCurrencyCache(rt));
    const profile = ctx.profiles.get(PROFILE);
    rt.setSession(PROFILE, ada);
    const first = weeklyIn(3);
    const t = await service.add(profile, { payeeId, amount: '10.00', currencyCode: 'EUR', rule: first.rule, zone: ZONE, leadDays: 5 });
    await expect(service.skip(profile, { id: t.id, date: first.date })).rejects.toMatchObject({ code: 'ALREADY_RECORDED', message: expect.stringContaining('schedule cancel payout') });
    const second = dateIn(Date.now(), ZONE, 10);
    await expect(service.skip(profile, { id: t.id, date: dateIn(Date.now(), ZONE, 11) })).rejects.toMatchObject({ code: 'BAD_DATE' });
    const skipped = await service.skip(profile, { id: t.id, date: second, reason: 'on holiday' });
    expect(skipped.occurrences.find((o) => o.date === second)).toMatchObject({ state: 'SKIPPED', reason: 'on holiday' });
    expect(skipped.next?.date).toBe(dateIn(Date.now(), ZONE, 17));
    // The skipped date's lead time comes: nothing made.
    expect((await runRecurring(rt, profile, { now: Date.now() + 6 * DAY })).created).toEqual([]);

    expect((await service.pause(profile, { id: t.id })).state).toBe('PAUSED');
    expect((await runRecurring(rt, profile, { now: Date.now() + 13 * DAY })).created).toEqual([]);
    await expect(service.pause(profile, { id: t.id })).rejects.toMatchObject({ code: 'BAD_STATE' });
    expect((await service.end(profile, { id: t.id })).state).toBe('ENDED');
    await expect(service.resume(profile, { id: t.id })).rejects.toMatchObject({ code: 'BAD_STATE' });
    const actions = (await (await rt.journalFor(PROFILE)).listAudit(50)).map((e) => e.action).filter((a) => a.startsWith('recurring.'));
    expect(actions.sort()).toEqual(['recurring.added', 'recurring.ended', 'recurring.occurrence-made', 'recurring.paused', 'recurring.skipped']);
  });

  it('takes over a claim a stopped desk left, and finds its payout instead of making a second', async () => {
    const service = recurringService(rt, createCurrencyCache(rt));
    const profile = ctx.profiles.get(PROFILE);
    rt.setSession(PROFILE, ada);
    const { rule, date } = weeklyIn(6);
    const t = await service.add(profile, { payeeId, amount: '10.00', currencyCode: 'EUR', rule, zone: ZONE, leadDays: 5 });
    const store = (await rt.storesFor(PROFILE)).recurring;
    const payoutId = occurrencePayoutId(t.id, date);
    const now = Date.now() + 2 * DAY;
    // Another desk claimed the date and stopped before making the payout.
    await store.recordOccurrence({ templateId: t.id, date, payoutId, state: 'CREATING', reason: null, actor: 'desk-gone', createdAt: now - 1_000 });
    expect((await runRecurring(rt, profile, { now })).created).toEqual([]);
    const result = await runRecurring(rt, profile, { now: now + CLAIM_STALE_MS });
    expect(result.created).toEqual([{ templateId: t.id, date, payoutId }]);
    expect((await store.occurrences([t.id]))[0]).toMatchObject({ state: 'CREATED' });
    expect(await (await rt.journalFor(PROFILE)).getPayment('payout', payoutId)).toMatchObject({ state: 'HELD' });
  });

  it('refuses a rule, reference or payee it cannot use, naming the field', async () => {
    const service = recurringService(rt, createCurrencyCache(rt));
    const profile = ctx.profiles.get(PROFILE);
    rt.setSession(PROFILE, ada);
    const base = { payeeId, amount: '10.00', currencyCode: 'EUR', rule: 'monthly 25', zone: ZONE };
    await expect(service.add(profile, { ...base, rule: 'every day' })).rejects.toMatchObject({ code: 'BAD_RECURRENCE', issues: [expect.objectContaining({ field: 'rule' })] });
    await expect(service.add(profile, { ...base, reference: 'Rent {month}' })).rejects.toMatchObject({ code: 'VALIDATION', issues: [expect.objectContaining({ field: 'reference' })] });
    await expect(service.add(profile, { ...base, payeeId: 'no-such-payee' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(service.add(profile, { ...base, zone: 'Mars/Olympus' })).rejects.toMatchObject({ code: 'BAD_RECURRENCE' });
    rt.setSession(PROFILE, null);
    await expect(service.add(profile, base)).rejects.toMatchObject({ code: 'LOCKED' });
    expect((await service.list(profile, {})).items).toEqual([]);
  });
});
