import { describe, expect, it } from 'vitest';
import { approvalStateText, type ApprovalStatusLike } from './approval-text';

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
});
