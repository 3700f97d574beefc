// What a person reads about a held payout (main/desk/convert.ts reasonOf): one sent on a date waits for its time and is
// moved or cancelled on the Calendar; any other held payout waits for a fix, then a release or a discard.
import { describe, expect, it } from 'vitest';
import { reasonOf } from '../../../main/desk/convert';
import type { PaymentRecord } from '../../../main/journal';
import { scheduledHoldText } from '../../../main/schedules/schedule';

const held = (lastError: string | null) => ({ state: 'HELD', lastError, notFoundSince: null }) as unknown as PaymentRecord;

describe('reasonOf a held payout', () => {
  it('says when a scheduled payout leaves and where it is moved, never "release it after the fix"', () => {
    const text = reasonOf(held(scheduledHoldText('2026-12-24 09:00 Europe/Berlin')));
    expect(text).toBe('Scheduled: released on 2026-12-24 09:00 Europe/Berlin, not before. Move or cancel it on the Calendar.');
  });

  it('keeps the fix-then-release advice for a payout held for a reason', () => {
    expect(reasonOf(held('the gateway refused the token (401)'))).toBe('Held, not sent: the gateway refused the token (401). Release it after the fix, or discard it.');
    expect(reasonOf(held(null))).toBe('Held, not sent: a person must act. Release it after the fix, or discard it.');
  });
});
