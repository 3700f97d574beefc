// How a batch or payout stands with dual control, in the words the screens use. "waiting for approval
// (1 of 2)" names the approval it waits for, of those required: the first of two while none is given.
import type { ApprovalStatusView } from '../../contract/api';

export type ApprovalStatusLike = Pick<ApprovalStatusView, 'state' | 'required' | 'approvedBy' | 'rejectedBy'> & Partial<Pick<ApprovalStatusView, 'stillNeeded'>>;

/** "It needs 1 more approval from: Bob, Cy." as main worked it out (who can approve is never guessed here); null when none is missing. */
export function stillNeededSentence(s: Pick<ApprovalStatusLike, 'stillNeeded'>): string | null {
  return s.stillNeeded ? `It ${s.stillNeeded.text}.` : null;
}

export function approvalStateText(s: ApprovalStatusLike): string {
  switch (s.state) {
    case 'waiting':
      return `waiting for approval (${Math.max(1, Math.min(s.approvedBy.length + 1, s.required))} of ${s.required})`;
    case 'rejected':
      return `rejected by ${s.rejectedBy.map((r) => r.name).join(', ')}`;
    case 'approved':
      return `approved (${s.approvedBy.length} of ${s.required})`;
    case 'unchecked':
      return 'checking…';
    default:
      return 'no approval needed';
  }
}
