import { describe, expect, it } from 'vitest';
import type { SecondFactorView } from '../../contract/api';
import { asksForCode, codeNeeded, covered, enrolmentMissing, isCodeShape, isNotEnrolled, msUntilUncovered } from './second-factor';

const NOW = Date.parse('2026-11-27T10:00:00Z');
const view = (v: Partial<SecondFactorView>): SecondFactorView => ({
  personId: 'p1', enrolled: true, recoveryCodesLeft: 10, onApprove: true, onAdmin: true, verifiedUntil: null, ...v,
});
const error = (code: string) => ({ code, message: code, retryable: false });

describe('isCodeShape', () => {
  it('takes 6 digits or a recovery code, with or without its dash, as main does', () => {
    expect(isCodeShape('123456')).toBe(true);
    expect(isCodeShape(' 123456 ')).toBe(true);
    expect(isCodeShape('ABCDE-23456')).toBe(true);
    expect(isCodeShape('abcde23456')).toBe(true);
    expect(isCodeShape('12345')).toBe(false);
    expect(isCodeShape('1234567')).toBe(false);
    expect(isCodeShape('ABCD-23456')).toBe(false);
    expect(isCodeShape('')).toBe(false);
  });
});

describe('codeNeeded', () => {
  it('asks when main says the action asks and no code typed lately covers it', () => {
    expect(codeNeeded(view({}), 'approve', NOW)).toBe(true);
    expect(codeNeeded(view({ onApprove: false }), 'approve', NOW)).toBe(false);
    expect(codeNeeded(view({ onAdmin: false }), 'admin', NOW)).toBe(false);
    expect(codeNeeded(view({ onApprove: false }), 'admin', NOW)).toBe(true);
  });
  it('does not ask while the last code covers the person, and asks again once it has run out', () => {
    const until = '2026-11-27T10:03:00Z';
    expect(covered(view({ verifiedUntil: until }), NOW)).toBe(true);
    expect(codeNeeded(view({ verifiedUntil: until }), 'approve', NOW)).toBe(false);
    expect(codeNeeded(view({ verifiedUntil: until }), 'approve', Date.parse('2026-11-27T10:03:01Z'))).toBe(true);
  });
  it('asks nothing when nobody is unlocked or nothing is known yet', () => {
    expect(codeNeeded(null, 'approve', NOW)).toBe(false);
    expect(codeNeeded(view({ personId: null }), 'approve', NOW)).toBe(false);
  });
});

describe('msUntilUncovered', () => {
  it('is the time left until the last code runs out, plus a little so the line is gone when the timer fires', () => {
    const v = view({ verifiedUntil: '2026-11-27T10:03:00Z' });
    expect(msUntilUncovered(v, NOW, 250)).toBe(180_250);
    expect(covered(v, NOW + msUntilUncovered(v, NOW)!)).toBe(false);
  });
  it('is null when no code covers the person now', () => {
    expect(msUntilUncovered(view({ verifiedUntil: null }), NOW)).toBeNull();
    expect(msUntilUncovered(view({ verifiedUntil: '2026-11-27T09:59:59Z' }), NOW)).toBeNull();
    expect(msUntilUncovered(null, NOW)).toBeNull();
  });
  it('never asks setTimeout for more than it keeps', () => {
    expect(msUntilUncovered(view({ verifiedUntil: '2030-01-01T00:00:00Z' }), NOW)).toBe(2 ** 31 - 1);
  });
});

describe('enrolmentMissing', () => {
  it('is true only when the action asks and the person has no second factor here', () => {
    expect(enrolmentMissing(view({ enrolled: false }), 'approve')).toBe(true);
    expect(enrolmentMissing(view({ enrolled: false, onApprove: false }), 'approve')).toBe(false);
    expect(enrolmentMissing(view({ enrolled: true }), 'admin')).toBe(false);
    expect(enrolmentMissing(null, 'admin')).toBe(false);
  });
});

describe('main\'s answers', () => {
  it('tells "type a code" apart from "set one up first" and from other refusals', () => {
    expect(asksForCode(error('SECOND_FACTOR_REQUIRED'))).toBe(true);
    expect(asksForCode(error('SECOND_FACTOR_WRONG'))).toBe(true);
    expect(asksForCode(error('SECOND_FACTOR_REPLAYED'))).toBe(true);
    expect(asksForCode(error('WRONG_PASSPHRASE'))).toBe(false);
    expect(asksForCode(null)).toBe(false);
    expect(isNotEnrolled(error('SECOND_FACTOR_NOT_ENROLLED'))).toBe(true);
    expect(isNotEnrolled(error('SECOND_FACTOR_REQUIRED'))).toBe(false);
  });
});
