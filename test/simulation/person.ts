// What the simulated person knows and intends: every intent (what they asked to pay: one payee and
// amount, with an account number of its own, so every gateway payment can be traced back to the
// intent it pays), the batches they submitted, and what the desk acknowledged to them (a pause, a
// cancel, a hold) from which moment on. The invariants are checked against this record.
import type { ApprovalRecord } from '../../main/approvals/approval';
import type { Manifest } from '../../main/approvals/manifest';
import type { ChainRecord } from '../../main/trust/chain-record';
import type { Outcome } from './steps';

export interface Intent {
  no: number;
  accountNumber: string;
  accountName: string;
  amountMinor: number;
  /** The person asked the desk to pay it (a create or a submitted batch row the desk took). */
  confirmed: boolean;
  /** The desk's answer left the person believing nothing was kept: they will enter it again. */
  reenter: boolean;
}

export interface Acknowledgement {
  kind: 'pause' | 'cancel' | 'hold';
  /** A batch id (pause, cancel) or a payout id (hold). */
  subject: string;
  at: number;
  /** Set when the person lifted it again (resume, release). */
  liftedAt: number | null;
}

/** A payout or batch the person scheduled, as the desk confirmed it to them (never read back from the journal's rows). */
export interface ScheduledRecord {
  kind: 'payout' | 'batch';
  id: string;
  /** Its payout ids (the payout's own, or the batch's rows). */
  rowIds: string[];
  /** Its release instants, each in force from `from` (when the person asked for it): created, then each move. */
  times: { from: number; at: number }[];
  /** When the person asked for the cancel the desk confirmed; null while not cancelled. */
  cancelledAt: number | null;
}

const SUFFIX: Record<Outcome, string> = { pays: '1234', fails: '0000', returns: '9999' };

export class Person {
  readonly intents: Intent[] = [];
  readonly batches: string[] = [];
  readonly acks: Acknowledgement[] = [];
  /** Dual control is on for this run (people and a policy on the desk). */
  dualControl = false;
  /** Approvals the desk took although it had to refuse them (by the preparer, a revoked person): invariant 7. */
  readonly refusalsBroken: string[] = [];
  /** The control records as the person's own steps made them (the oracle's people and policies; never read back from the store). */
  chain: ChainRecord[] = [];
  /** Each payout's and batch's manifest as journalled, before any adversary step could touch it ("batch:<id>", "payout:<id>"). */
  readonly manifests = new Map<string, Manifest>();
  /** Payouts whose account an adversary rewrote, with the account the person asked for. */
  readonly originalAccount = new Map<string, string>();
  /** Payouts an adversary marked of unknown outcome (their sends are re-sends; a hold no longer holds them). */
  readonly flipped = new Set<string>();
  /** Approvals the person's own approvers gave (the oracle counts these, never rows read back from the store). */
  readonly approvals: ApprovalRecord[] = [];
  /** What the desk did although it had to refuse it (a desk user with nobody unlocked): invariant 8. */
  readonly unrefused: string[] = [];
  /** What an adversary took away and will put back (restore): the approvals' rows. */
  readonly takenAway = new Map<'approvals', Record<string, unknown>[]>();
  /** Scheduled payouts and batches ("payout:<id>", "batch:<id>"), and each of their payout ids to its record. */
  readonly scheduled = new Map<string, ScheduledRecord>();
  readonly scheduledRow = new Map<string, ScheduledRecord>();
  /** What the desk did with a schedule that it must not have (a time stored other than asked, a skipped time taken): invariant 9. */
  readonly calendarBroken: string[] = [];
  private ids = 0;

  newIntent(outcome: Outcome, amountMinor: number): Intent {
    const no = this.intents.length + 1;
    const intent: Intent = {
      no,
      accountNumber: `SIM-${no}-${SUFFIX[outcome]}`,
      accountName: `Payee ${no}`,
      amountMinor,
      confirmed: false,
      reenter: false,
    };
    this.intents.push(intent);
    return intent;
  }

  intentOfAccount(accountNumber: string): Intent | undefined {
    const no = Number(/^SIM-(\d+)-/.exec(accountNumber)?.[1]);
    return Number.isInteger(no) ? this.intents[no - 1] : undefined;
  }

  /** The id a person's screen would have generated (deterministic, so runs replay exactly). */
  newPayoutId(prefix: string): string {
    this.ids++;
    return `${prefix}${this.ids}`;
  }

  schedule(record: ScheduledRecord): void {
    this.scheduled.set(`${record.kind}:${record.id}`, record);
    for (const id of record.rowIds) this.scheduledRow.set(id, record);
  }

  acknowledge(kind: Acknowledgement['kind'], subject: string, at: number): void {
    if (this.acks.some((a) => a.kind === kind && a.subject === subject && a.liftedAt === null)) return;
    this.acks.push({ kind, subject, at, liftedAt: null });
  }

  lift(kind: Acknowledgement['kind'], subject: string, at: number): void {
    for (const a of this.acks) if (a.kind === kind && a.subject === subject && a.liftedAt === null) a.liftedAt = at;
  }
}
