// Recurring payouts' store on both back ends: the SQLite journal (recurring-store-sqlite.test.ts) and the team database
// (test/integration/postgres/recurring-store.test.ts). A template's terms stay as made, its state moves only from the
// states asked; each (template, date) is recorded once, so two desks that look at one date make one payout.
import { describe, expect, it } from 'vitest';
import type { RecurringStore, RecurringTemplate } from '../../../main/schedules/recurring';

const T0 = 1_750_000_000_000;

export const template = (id: string, over: Partial<RecurringTemplate> = {}): RecurringTemplate => ({
  id, payeeId: 'payee-1', amountMinor: 125_000, currencyCode: 'EUR', referencePattern: 'Rent {yyyy-MM}', rule: 'monthly 25', start: '2027-01-01',
  endCount: null, endUntil: null, timeOfDay: '08:00', zone: 'Europe/Berlin', leadDays: 5, state: 'ACTIVE', activeSince: T0, createdBy: 'alice',
  createdAt: T0, updatedAt: T0, changedBy: null, ...over,
});

export function recurringStoreContract(name: string, open: () => Promise<RecurringStore>, second?: (first: RecurringStore) => Promise<RecurringStore>): void {
  describe(`recurring payouts on ${name}`, () => {
    it('keeps a template as made, and lists them by payee and state, oldest first', async () => {
      const s = await open();
      const rent = template('t-rent', { endCount: 12, amountMinor: 9_007_199_254_740_991 });
      await s.addTemplate(rent);
      await s.addTemplate(template('t-fee', { payeeId: 'payee-2', createdAt: T0 + 1, referencePattern: null, endUntil: '2027-12-31', createdBy: null }));
      expect(await s.template('t-rent')).toEqual(rent);
      expect(await s.template('nope')).toBeNull();
      expect((await s.templates()).map((t) => t.id)).toEqual(['t-rent', 't-fee']);
      expect((await s.templates({ payeeId: 'payee-2' })).map((t) => t.id)).toEqual(['t-fee']);
      expect(await s.templates({ states: ['PAUSED'] })).toEqual([]);
      await expect(s.addTemplate(template('t-rent'))).rejects.toThrow();
    });

    it('moves a template only from the states asked; resuming starts its active time again', async () => {
      const s = await open();
      await s.addTemplate(template('t-1'));
      expect(await s.setTemplateState('t-1', { from: ['ACTIVE'], to: 'PAUSED', at: T0 + 10, by: 'bob' })).toMatchObject({ state: 'PAUSED', activeSince: T0, changedBy: 'bob', updatedAt: T0 + 10 });
      // A second desk pausing it too finds it paused already.
      expect(await s.setTemplateState('t-1', { from: ['ACTIVE'], to: 'PAUSED', at: T0 + 11, by: 'carol' })).toBeNull();
      expect(await s.setTemplateState('t-1', { from: ['PAUSED'], to: 'ACTIVE', at: T0 + 20, by: 'bob' })).toMatchObject({ state: 'ACTIVE', activeSince: T0 + 20 });
      expect(await s.setTemplateState('t-1', { from: ['ACTIVE', 'PAUSED'], to: 'ENDED', at: T0 + 30, by: 'bob' })).toMatchObject({ state: 'ENDED', activeSince: T0 + 20 });
      expect(await s.setTemplateState('t-1', { from: ['PAUSED'], to: 'ACTIVE', at: T0 + 40, by: 'bob' })).toBeNull();
      expect(await s.setTemplateState('missing', { from: ['ACTIVE'], to: 'PAUSED', at: T0, by: null })).toBeNull();
      expect((await s.templates({ states: ['ENDED'] })).map((t) => t.id)).toEqual(['t-1']);
    });

    it('records one occurrence per template and date: a second claim of the date is refused', async () => {
      const s = await open();
      await s.addTemplate(template('t-1'));
      await s.addTemplate(template('t-2', { createdAt: T0 + 1 }));
      const claim = { templateId: 't-1', date: '2027-01-25', payoutId: 'rec-t-1-20270125', state: 'CREATING' as const, reason: null, actor: 'desk-a', createdAt: T0 };
      expect(await s.recordOccurrence(claim)).toBe(true);
      expect(await s.recordOccurrence({ ...claim, actor: 'desk-b' })).toBe(false);
      // A person skipping the date after it was claimed is refused too: the row says what happened to it.
      expect(await s.recordOccurrence({ ...claim, state: 'SKIPPED', payoutId: null, actor: 'person:bob' })).toBe(false);
      // Another template's same date is its own.
      expect(await s.recordOccurrence({ ...claim, templateId: 't-2', payoutId: 'rec-t-2-20270125' })).toBe(true);
      expect(await s.recordOccurrence({ ...claim, date: '2027-02-25', state: 'SKIPPED', payoutId: null, reason: 'paid by hand', actor: 'person:bob' })).toBe(true);
      expect(await s.occurrences(['t-1'])).toEqual([
        { ...claim, updatedAt: T0 },
        { ...claim, date: '2027-02-25', state: 'SKIPPED', payoutId: null, reason: 'paid by hand', actor: 'person:bob', updatedAt: T0 },
      ]);
      expect((await s.occurrences(['t-1', 't-2'])).map((o) => `${o.templateId} ${o.date}`)).toEqual(['t-1 2027-01-25', 't-1 2027-02-25', 't-2 2027-01-25']);
      expect(await s.occurrences([])).toEqual([]);
    });

    it('settles a claim once, and lets only one desk take over a stale one', async () => {
      const s = await open();
      await s.addTemplate(template('t-1'));
      const claim = { templateId: 't-1', date: '2027-01-25', payoutId: 'rec-t-1-20270125', state: 'CREATING' as const, reason: null, actor: 'desk-a', createdAt: T0 };
      await s.recordOccurrence(claim);
      // Not stale yet.
      expect(await s.reclaimOccurrence('t-1', '2027-01-25', { actor: 'desk-b', at: T0 + 1_000, staleBefore: T0 })).toBe(false);
      expect(await s.reclaimOccurrence('t-1', '2027-01-25', { actor: 'desk-b', at: T0 + 120_000, staleBefore: T0 + 1 })).toBe(true);
      // Desk c looked at the same moment with the same idea: the claim is b's now, fresh.
      expect(await s.reclaimOccurrence('t-1', '2027-01-25', { actor: 'desk-c', at: T0 + 120_000, staleBefore: T0 + 1 })).toBe(false);
      expect(await s.settleOccurrence('t-1', '2027-01-25', { state: 'CREATED', reason: null, at: T0 + 121_000 })).toBe(true);
      expect(await s.settleOccurrence('t-1', '2027-01-25', { state: 'FAILED', reason: 'late', at: T0 + 122_000 })).toBe(false);
      expect(await s.reclaimOccurrence('t-1', '2027-01-25', { actor: 'desk-c', at: T0 + 999_000, staleBefore: T0 + 998_000 })).toBe(false);
      expect(await s.occurrences(['t-1'])).toEqual([{ ...claim, state: 'CREATED', actor: 'desk-b', updatedAt: T0 + 121_000 }]);
    });

    if (second) {
      it('lets exactly one of two desks claim a date they both look at', async () => {
        const a = await open();
        const b = await second(a);
        await a.addTemplate(template('t-1'));
        const dates = Array.from({ length: 20 }, (_, i) => `2027-${String(1 + (i % 12)).padStart(2, '0')}-${String(10 + Math.floor(i / 12)).padStart(2, '0')}`);
        const results = await Promise.all(dates.flatMap((date) => [a, b].map((s, k) => s.recordOccurrence({
          templateId: 't-1', date, payoutId: `p-${date}`, state: 'CREATING', reason: null, actor: `desk-${k}`, createdAt: T0,
        }))));
        expect(results.filter(Boolean)).toHaveLength(dates.length);
        expect(await a.occurrences(['t-1'])).toHaveLength(dates.length);
      });
    }
  });
}
