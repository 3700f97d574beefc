// What the Approvals item of the navigation drawer counts: the queue items the unlocked person may approve
// or reject now. The dual-control store derives both the drawer's badge and the "Waiting for me" tab from
// these, so the two always agree.
import type { ApprovalItem } from '../../contract/api';

/** The unlocked person may decide it now (main's forMe), and it still waits for approvals. */
export function isWaitingForMe(item: Pick<ApprovalItem, 'forMe' | 'state'>): boolean {
  return item.forMe && item.state === 'waiting';
}

/** The badge's number: nothing while dual control is off or nobody is unlocked (forMe would mean no one). */
export function waitingBadgeCount(items: readonly Pick<ApprovalItem, 'forMe' | 'state'>[], context: { enforced: boolean; unlocked: boolean }): number {
  if (!context.enforced || !context.unlocked) return 0;
  return items.filter(isWaitingForMe).length;
}

/** What a screen reader says for the badge (its text alone is a bare number). */
export function waitingBadgeLabel(count: number): string {
  return `${count} waiting for your approval`;
}
