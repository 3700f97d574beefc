// What the approval gate reads, and the desk writes, of approvals and preparers' signatures: the part of the
// dual-control store that is about approvals (trust/repository.ts's DualControlRepository is one, with the
// control chain besides). Kept here so the gate needs nothing of the chain's storage.
import type { ApprovalRecord } from './approval';
import type { Subject } from './manifest';
import type { PreparationRecord } from './preparation';

export interface ApprovalStore {
  addApproval(approval: ApprovalRecord): Promise<void>;
  approvalsFor(subject: Subject): Promise<ApprovalRecord[]>;
  /** Every approval or rejection, newest first (a queue, a person's history). */
  listApprovals(limit?: number): Promise<ApprovalRecord[]>;

  addPreparation(preparation: PreparationRecord): Promise<void>;
  preparationsFor(subject: Subject): Promise<PreparationRecord[]>;

  /**
   * A cheap, synchronous marker of everything a verdict rests on (the chain, approvals, preparations): it
   * differs after any write, by this desk or another process on the same store. The send path compares it
   * right before a create leaves (it cannot wait on I/O there), so an adapter whose store is remote keeps it
   * moving on every change notification (whatever the notification says: it is only a hint to look again).
   */
  changeMarker(): string;
}
