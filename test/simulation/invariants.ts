// The promises the desk makes, checked against the gateway model (what really happened) and the
// person's record (what was asked and acknowledged):
// 1 no intent has more than one attempt the gateway paid or may still pay;
// 2 every id the gateway stored is in the journal, with what the person asked for;
// 3 every intent the person confirmed ends resolved and visible (at quiescence);
// 4 nothing leaves after a pause, cancel or hold was acknowledged;
// 5 at quiescence the journal says what the gateway says, for every id;
// 6 the audit chain verifies;
// 7 with dual control on, no payout or batch leaves (its first create reaches the gateway) without the
//   approvals its policy then required, valid against the people as they were (role at signing, not
//   revoked before the send, not the preparer), and the desk refuses an approval by the preparer;
// 8 with dual control on, every create that reaches the gateway (first send or re-send) carries exactly the
//   row of its payout or batch as journalled before any adversary step, whatever the adversary did to the rows,
//   the control records, the approvals or the notifications since; what a desk user with nobody unlocked
//   tries that needs an admin is refused; and every payout or batch the desk holds back says why (quiescence);
// 9 the calendar: nothing of a scheduled payout or batch reaches the gateway before the release time in force
//   (as the person asked for it, moves included), nothing of a cancelled schedule ever does, the desk stores the
//   instant the person meant by a wall time and refuses one the clocks skip, and (at quiescence) no schedule is
//   released more than once (the audit log's "*.released-at-time" entries), nor by a desk before its time or past
//   the late window without a person confirming it, and each release records how late it was. At the gateway,
//   one payment per intent stays invariant 1's (a scheduled payout has one id, created once or re-sent under it).
// 10 recurring payouts (recurring-world.ts, at quiescence): per template and date at most one payout in the journal and
//   one payout id created at the gateway, nothing for a skipped date nor made while paused for a date released in the
//   pause, each scheduled at and leaving no earlier than its date's release. Their payouts (ids "rec-…") pay one payee week after week: invariant 10, not 1 or 2, counts them.
import type { BatchRecord, DeskJournal, PaymentRecord } from '../../main/journal';
import { GENESIS_HASH, type AuditMark } from '../../main/audit/chain';
import type { SimJournal } from './adapters';
import { MAY_PAY, type GatewayModel } from './gateway-model';
import { approvalBreach, bodyBreach, journalledManifest, trustedControl } from './dual-control';
import type { Person } from './person';
import { SIM_LATE_WINDOW_MINUTES } from './calendar-steps';
import { recurringViolations } from './recurring-world';

export interface Violation {
  invariant: 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9 | 10;
  /** What kind of breach, so a shortened history keeps failing the same way. */
  kind: string;
  message: string;
}

/** Local states that stand for "a person must look at this", shown as such (not silently stuck). */
const SHOWN_FOR_A_PERSON = new Set(['MISMATCH', 'HELD', 'UNKNOWN', 'MISSING']);
/** Local states in which nothing was paid, final. */
const NOT_PAID_FINAL = new Set(['REJECTED', 'CANCELLED', 'DISCARDED']);

/** Every payout in the journal, in creation order (the port's export read: a generator or chunks). */
export async function payoutsOf(journal: DeskJournal): Promise<PaymentRecord[]> {
  const payouts: PaymentRecord[] = [];
  for await (const p of journal.iterateHistory({ kind: 'payout' })) payouts.push(p);
  return payouts;
}

/** A recurring payout's occurrence (main/schedules/recurring.ts occurrencePayoutId): invariant 10 counts these. */
const isOccurrence = (id: string): boolean => id.startsWith('rec-');

export class InvariantChecker {
  private arrivalsSeen = 0;
  /** Gateway payouts already matched with the journal (the journal never forgets a payout). */
  private readonly matched = new Set<string>();
  private auditMark: AuditMark = { seq: 0, hash: GENESIS_HASH };
  /** Subjects (payout or batch ids) whose first create reached the gateway. */
  private readonly leftSubjects = new Set<string>();
  private calendarArrivalsSeen = 0;
  /** Scheduled subjects ("kind:id") a create of which reached the gateway. */
  private readonly scheduledLeft = new Set<string>();

  constructor(
    private readonly model: GatewayModel,
    private readonly person: Person,
  ) {}

  /** Checks 1, 2, 4, 6 and 7: they must hold after every step. Work grows with what changed, not with the history. */
  async always(journal: SimJournal, now: number): Promise<Violation[]> {
    const violations: Violation[] = [];

    const mayPay = new Map<string, string[]>();
    for (const g of this.model.payouts.values()) {
      if (!MAY_PAY.has(this.model.statusOf(g, now)) || isOccurrence(g.id)) continue;
      mayPay.set(g.accountNumber, [...(mayPay.get(g.accountNumber) ?? []), g.id]);
    }
    for (const [account, ids] of mayPay) {
      if (ids.length > 1) violations.push({ invariant: 1, kind: 'paid twice', message: `intent ${account} has ${ids.length} attempts the gateway paid or may pay: ${ids.join(', ')}` });
    }

    for (const g of this.model.payouts.values()) {
      if (this.matched.has(g.id)) continue;
      const p = await journal.port.getPayment('payout', g.id);
      const intent = this.person.intentOfAccount(g.accountNumber);
      if (!p) violations.push({ invariant: 2, kind: 'unknown id', message: `the gateway stored ${g.id}, which the journal does not know` });
      else if (p.amountMinor !== g.amountMinor || p.accountNumber !== g.accountNumber) {
        violations.push({ invariant: 2, kind: 'other money', message: `the gateway stored ${g.id} with other money or payee than the journal` });
      }
      if ((!intent || intent.amountMinor !== g.amountMinor) && !isOccurrence(g.id)) violations.push({ invariant: 2, kind: 'not asked for', message: `the gateway stored ${g.id}, which no intent of the person asked for` });
      if (p) this.matched.add(g.id);
    }

    const trusted = this.person.dualControl ? trustedControl(this.person.chain) : null;
    for (const arrival of this.model.arrivals.slice(this.arrivalsSeen)) {
      const batchId = (await journal.port.getPayment('payout', arrival.id))?.batchId;
      const subjects = [arrival.id, ...(batchId ? [batchId] : [])];
      // What counts is when the request left the desk: one already on the wire when a pause is acknowledged is seen through.
      const left = arrival.sentAt;
      const ack = this.person.acks.find((a) => subjects.includes(a.subject) && a.at <= left && (a.liftedAt === null || a.liftedAt > left));
      // A payout an adversary marked "unknown outcome" is a re-send, which a hold does not stop (threat model).
      if (ack && !this.person.flipped.has(arrival.id)) violations.push({ invariant: 4, kind: `left after ${ack.kind}`, message: `${arrival.id} left the desk at ${left} after a ${ack.kind} of ${ack.subject} was acknowledged at ${ack.at}` });
      const subject = batchId ? { kind: 'batch' as const, id: batchId } : { kind: 'payout' as const, id: arrival.id };
      if (!trusted) continue;
      const manifest = await this.manifestOf(journal, subject);
      const body = bodyBreach(arrival.id, arrival.body, manifest);
      if (body) violations.push({ invariant: 8, kind: 'left with another body', message: body });
      if (!this.leftSubjects.has(subject.id)) {
        this.leftSubjects.add(subject.id);
        const resend = manifest?.rows.some((r) => this.person.flipped.has(r.id)) ?? false;
        const breach = approvalBreach(subject, left, trusted, manifest, resend, this.person.approvals);
        if (breach) violations.push({ invariant: 7, kind: 'left without approvals', message: breach });
      }
    }
    for (const message of this.person.refusalsBroken.splice(0)) violations.push({ invariant: 7, kind: 'approval not refused', message });
    for (const message of this.person.unrefused.splice(0)) violations.push({ invariant: 8, kind: 'desk user not refused', message });
    this.arrivalsSeen = this.model.arrivals.length;
    if (this.person.scheduled.size > 0 || this.person.calendarBroken.length > 0) violations.push(...this.calendar());

    const audit = await journal.tables.auditSince(this.auditMark);
    if (!audit.result.ok) violations.push({ invariant: 6, kind: 'audit', message: `the audit chain does not verify: ${JSON.stringify(audit.result.problems)}` });
    this.auditMark = audit.mark;
    return violations;
  }

  /** Invariant 9 on what reached the gateway since the last check (no journal reads: the person's record only). */
  private calendar(): Violation[] {
    const violations: Violation[] = [];
    for (const arrival of this.model.arrivals.slice(this.calendarArrivalsSeen)) {
      const record = this.person.scheduledRow.get(arrival.id);
      if (!record) continue;
      this.scheduledLeft.add(`${record.kind}:${record.id}`);
      const inForce = record.times.findLast((t) => t.from <= arrival.sentAt) ?? record.times[0]!;
      if (arrival.sentAt < inForce.at) {
        violations.push({ invariant: 9, kind: 'left before its time', message: `${arrival.id} of ${record.kind} ${record.id} left the desk at ${new Date(arrival.sentAt).toISOString()}, before its release time ${new Date(inForce.at).toISOString()}` });
      }
    }
    this.calendarArrivalsSeen = this.model.arrivals.length;
    for (const key of this.scheduledLeft) {
      const record = this.person.scheduled.get(key)!;
      if (record.cancelledAt !== null) violations.push({ invariant: 9, kind: 'left though cancelled', message: `${record.kind} ${record.id} reached the gateway, yet its schedule was cancelled at ${new Date(record.cancelledAt).toISOString()}` });
    }
    for (const message of this.person.calendarBroken.splice(0)) violations.push({ invariant: 9, kind: 'schedule stored wrong', message });
    return violations;
  }

  /** Invariant 9 at quiescence: releases, once each, none early, each with how late it was. */
  private async calendarAtQuiescence(journal: SimJournal): Promise<Violation[]> {
    const violations: Violation[] = [];
    const releases = new Map<string, number>();
    const PAGE = 1_000;
    for (let before: number | undefined; ; ) {
      const page = await journal.port.listAudit(PAGE, before);
      for (const e of page) {
        if (!e.action.endsWith('.released-at-time') || e.subject === null) continue;
        const key = `${e.action.slice(0, e.action.indexOf('.'))}:${e.subject}`;
        releases.set(key, (releases.get(key) ?? 0) + 1);
        // Past the late window a desk does not release on its own: the schedule waits (LATE) for a person.
        const details = e.details as { lateByMs?: number; confirmedLate?: boolean } | null;
        if (details?.confirmedLate === false && (details.lateByMs ?? 0) > SIM_LATE_WINDOW_MINUTES * 60_000) {
          violations.push({ invariant: 9, kind: 'released past the late window', message: `${key.replace(':', ' ')} was released ${details.lateByMs} ms late by ${e.actor}, past the ${SIM_LATE_WINDOW_MINUTES} min window, without a person confirming it` });
        }
      }
      if (page.length < PAGE) break;
      before = page.at(-1)!.seq;
    }
    for (const [key, n] of releases) if (n > 1) violations.push({ invariant: 9, kind: 'released twice', message: `${key.replace(':', ' ')} was released ${n} times (audit log)` });
    for (const s of await journal.port.listSchedules({ states: ['RELEASED'] })) {
      const record = this.person.scheduled.get(`${s.kind}:${s.id}`);
      if (!record || s.releasedAt === null || s.releasedBy === 'someone') continue;
      const inForce = record.times.findLast((t) => t.from <= s.releasedAt!) ?? record.times[0]!;
      // A time someone wrote into the journal (not the person's) can have the loop mark it released early; whether
      // anything left early is the per-step check's (the gate holds it: the time is signed), not this bookkeeping's.
      if (s.releasedAt < inForce.at && s.at === inForce.at) violations.push({ invariant: 9, kind: 'released early', message: `${s.kind} ${s.id} was released by ${s.releasedBy} at ${new Date(s.releasedAt).toISOString()}, before ${new Date(inForce.at).toISOString()}` });
      if (s.lateByMs !== Math.max(0, s.releasedAt - s.at)) violations.push({ invariant: 9, kind: 'late-by not recorded', message: `${s.kind} ${s.id} released ${s.releasedAt - s.at} ms after its time records late by ${s.lateByMs}` });
    }
    return violations;
  }

  /**
   * A subject's manifest as journalled before any adversary step: recorded by the world before each such step;
   * one journalled since the last is read now (nothing could have touched it yet).
   */
  private async manifestOf(journal: SimJournal, subject: { kind: 'payout' | 'batch'; id: string }) {
    const key = `${subject.kind}:${subject.id}`;
    if (!this.person.manifests.has(key)) {
      const manifest = await journalledManifest(journal.port, subject);
      if (manifest) this.person.manifests.set(key, manifest);
    }
    return this.person.manifests.get(key);
  }

  /** Checks 3 and 5 (and 8's "says why"), once everything that can settle has settled. */
  async atQuiescence(journal: SimJournal, now: number): Promise<Violation[]> {
    const violations: Violation[] = [];
    const audit = await journal.tables.auditWhole();
    if (!audit.ok) violations.push({ invariant: 6, kind: 'audit', message: `the whole audit chain does not verify: ${JSON.stringify(audit.problems)}` });
    if (this.person.scheduled.size > 0) violations.push(...(await this.calendarAtQuiescence(journal)));
    violations.push(...(await recurringViolations(this.model, this.person, journal)));
    const payouts = await payoutsOf(journal.port);
    const batches = new Map<string, BatchRecord | undefined>();
    for (const id of new Set(payouts.map((p) => p.batchId))) if (id !== null) batches.set(id, await journal.port.getBatch(id));
    // A batch waiting for its release time holds its rows back as a paused one does (the calendar says why).
    const paused = (p: PaymentRecord) => p.batchId !== null && (batches.get(p.batchId)?.state === 'PAUSED' || batches.get(p.batchId)?.state === 'SCHEDULED');

    for (const p of payouts) {
      const g = this.model.payouts.get(p.id);
      const visible = g && !this.model.hidden(g, now) ? g : undefined;
      const shown = `${p.id} is ${p.state}/${p.status} in the journal`;
      if (visible) {
        const status = this.model.statusOf(visible, now);
        // A paid payout returned since the desk's last read is seen at its next planned re-read. "Since" as the gateway
        // answered it: a read in flight across the return was answered SUCCESS and recorded after it (seed 851).
        const returnedSinceRead = status === 'RETURNED' && p.gatewayStatus === 'SUCCESS' && p.nextPollAt !== null && (visible.returnedAt ?? 0) > (visible.lastReadAt ?? p.updatedAt);
        if ((p.state !== 'ACCEPTED' || p.gatewayStatus !== status) && !returnedSinceRead) violations.push({ invariant: 5, kind: `${p.state}/${p.gatewayStatus ?? '-'} vs ${status}`, message: `${shown}, the gateway has it ${status}` });
      } else if (g?.forgotten) {
        // MISSING once it was accepted; UNKNOWN (shown as such) when the desk never saw it accepted.
        if (p.state !== 'MISSING' && p.state !== 'UNKNOWN') violations.push({ invariant: 5, kind: 'missing not shown', message: `${shown}; the gateway no longer knows it, and the desk does not say so` });
      } else if (p.state === 'ACCEPTED') {
        violations.push({ invariant: 5, kind: 'accepted, unknown at gateway', message: `${shown}, the gateway has no such payout` });
      } else if (!NOT_PAID_FINAL.has(p.state) && !SHOWN_FOR_A_PERSON.has(p.state) && !paused(p)) {
        violations.push({ invariant: 5, kind: 'unsent, not held', message: `${shown} and was never sent, yet nothing holds it back` });
      }
    }

    if (this.person.dualControl) {
      // Whatever the desk holds back, it says why.
      for (const p of payouts) {
        // A payout an adversary marked UNKNOWN the desk may not have looked at since: nothing of the desk's to explain.
        const silent = (p.state === 'HELD' || p.state === 'UNKNOWN') && !p.lastError?.trim() && !this.person.flipped.has(p.id);
        if (silent) violations.push({ invariant: 8, kind: 'refusal not named', message: `${p.id} is ${p.state} and the desk does not say why` });
      }
      for (const [id, b] of batches) {
        if (b?.state === 'PAUSED' && !b.pauseReason?.trim()) violations.push({ invariant: 8, kind: 'refusal not named', message: `batch ${id} is paused and the desk does not say why` });
      }
    }

    const attempts = new Map<string, PaymentRecord[]>();
    // A row whose account an adversary rewrote is still the attempt of the intent the person asked for.
    const intentAccount = (p: PaymentRecord) => this.person.originalAccount.get(p.id) ?? p.accountNumber;
    for (const p of payouts) attempts.set(intentAccount(p), [...(attempts.get(intentAccount(p)) ?? []), p]);
    for (const intent of this.person.intents) {
      if (!intent.confirmed) continue;
      const mine = attempts.get(intent.accountNumber) ?? [];
      if (mine.length === 0) violations.push({ invariant: 3, kind: 'lost', message: `intent ${intent.accountNumber} was confirmed and is nowhere in the journal` });
      for (const p of mine) {
        const resolved = p.isFinal || NOT_PAID_FINAL.has(p.state) || SHOWN_FOR_A_PERSON.has(p.state) || paused(p);
        if (!resolved) violations.push({ invariant: 3, kind: `unresolved ${p.state}`, message: `intent ${intent.accountNumber}: attempt ${p.id} is still ${p.state}/${p.status}` });
      }
    }
    return violations;
  }
}
