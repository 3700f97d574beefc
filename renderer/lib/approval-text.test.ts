import { describe, expect, it } from 'vitest';
import { approvalStateText, stillNeededSentence, type ApprovalStatusLike } from './approval-text';

const ada = { id: 'a', name: 'Ada' };
const bob = { id: 'b', name: 'Bob' };
const status = (s: Partial<ApprovalStatusLike>): ApprovalStatusLike => ({ state: 'waiting', required: 2, approvedBy: [], rejectedBy: [], ...s });

describe('approvalStateText', () => {
  it('names the approval waited for, of those required', () => {
    expect(approvalStateText(status({ required: 1 }))).toBe('waiting for approval (1 of 1)');
    expect(approvalStateText(status({}))).toBe('waiting for approval (1 of 2)');
    expect(approvalStateText(status({ approvedBy: [ada] }))).toBe('waiting for approval (2 of 2)');
  });
  it('says who rejected, and how many approved once enough did', () => {
    expect(approvalStateText(status({ state: 'rejected', rejectedBy: [{ ...bob, reason: 'wrong IBAN' }] }))).toBe('rejected by Bob');
    expect(approvalStateText(status({ state: 'approved', approvedBy: [ada, bob] }))).toBe('approved (2 of 2)');
    expect(approvalStateText(status({ state: 'not-needed', required: 0 }))).toBe('no approval needed');
  });
  it('claims nothing of a subject the queue has not checked yet', () => {
    expect(approvalStateText(status({ state: 'unchecked', required: 0 }))).toBe('checking…');
  });
});

describe('stillNeededSentence', () => {
  it('shows main\'s words for who can still approve, or nothing when no approval is missing', () => {
    expect(stillNeededSentence(status({ stillNeeded: { more: 1, from: [bob], text: 'needs 1 more approval from: Bob' } }))).toBe('It needs 1 more approval from: Bob.');
    expect(stillNeededSentence(status({ stillNeeded: null }))).toBeNull();
    expect(stillNeededSentence(status({}))).toBeNull();
  });
});
