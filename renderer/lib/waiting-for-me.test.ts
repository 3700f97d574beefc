import { describe, expect, it } from 'vitest';
import type { ApprovalState } from '../../contract/api';
import { isWaitingForMe, waitingBadgeCount, waitingBadgeLabel } from './waiting-for-me';

const item = (forMe: boolean, state: ApprovalState = 'waiting') => ({ forMe, state });
const ON = { enforced: true, unlocked: true };

describe('isWaitingForMe', () => {
  it('is what the unlocked person may decide and still waits', () => {
    expect(isWaitingForMe(item(true))).toBe(true);
    expect(isWaitingForMe(item(false))).toBe(false);
    expect(isWaitingForMe(item(true, 'approved'))).toBe(false);
    expect(isWaitingForMe(item(true, 'rejected'))).toBe(false);
    expect(isWaitingForMe(item(true, 'not-needed'))).toBe(false);
  });
});

describe('waitingBadgeCount', () => {
  it('counts only what waits for the unlocked person', () => {
    expect(waitingBadgeCount([item(true), item(false), item(true), item(true, 'approved')], ON)).toBe(2);
    expect(waitingBadgeCount([], ON)).toBe(0);
  });
  it('is 0 while dual control is off or nobody is unlocked', () => {
    const queue = [item(true), item(true)];
    expect(waitingBadgeCount(queue, { enforced: false, unlocked: true })).toBe(0);
    expect(waitingBadgeCount(queue, { enforced: true, unlocked: false })).toBe(0);
  });
});

describe('waitingBadgeLabel', () => {
  it('names the number for a screen reader', () => {
    expect(waitingBadgeLabel(3)).toBe('3 waiting for your approval');
    expect(waitingBadgeLabel(1)).toBe('1 waiting for your approval');
  });
});
