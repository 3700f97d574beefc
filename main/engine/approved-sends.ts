// Dual control at the moment money would leave: the approval gate is asked for every create, first send or
// re-send, by a single payout here and by a batch run through batchClearance (batch-runner.ts). A refusal
// is audited, and nothing is sent: a first send is held with the reason, a payout that may already be at
// the gateway stays UNKNOWN and is only read. The engine (payout-engine.ts) owns the runs; this owns the yes.
import { mayBeAtGateway } from '../domain/status';
import type { JournalPort } from '../journal';
import type { EngineEvents } from './events';
import type { PayoutSender, SendOutcome } from './payout-sender';
import type { ApprovalClearance, ApprovalGatePort } from './ports';

export interface ApprovedSendsOptions<J extends JournalPort> {
  journal: J;
  gate: ApprovalGatePort;
  sender: PayoutSender;
  now: () => number;
  /** A payout held by a refusal is told to the screens as any status change is. */
  onStatus: (event: EngineEvents['status-changed'][0]) => void;
}

export class ApprovedSends<J extends JournalPort> {
  private readonly journal: J;
  private readonly gate: ApprovalGatePort;
  private readonly sender: PayoutSender;
  private readonly now: () => number;
  private readonly onStatus: ApprovedSendsOptions<J>['onStatus'];

  constructor(options: ApprovedSendsOptions<J>) {
    this.journal = options.journal;
    this.gate = options.gate;
    this.sender = options.sender;
    this.now = options.now;
    this.onStatus = options.onStatus;
  }

  /**
   * Dual control for a single payout about to be created: a first send (QUEUED, no try of unknown outcome) under
   * today's policy, a re-send of an unknown outcome under the policy its approvals were given under. On a
   * refusal nothing is sent and the refusal is audited: a first send is HELD with the reason; a payout that may
   * already be at the gateway is not sent again (it stays UNKNOWN, read with GET, the reason shown). Tries the
   * gateway certainly did not store (refused credentials, 429, never connected) do not count: the send that may
   * store it is checked against the approvals and policy of its moment, not of the first failed try (the
   * simulation found a payout approved under policy 1, refused at its token, released under policy 2 and sent
   * without a new approval).
   */
  private async payoutApproved(id: string): Promise<ApprovalClearance | 'refused' | 'not-asked'> {
    const gate = this.gate;
    const row = await this.journal.getPayment('payout', id);
    // A batch's row leaves only with its batch's run, which asks the gate for the whole batch: never on its own (a
    // batch id written on a held single payout in the journal must not turn "release" into a send without the gate).
    if (row?.batchId) return 'refused';
    if (!row || !['QUEUED', 'SENDING', 'UNKNOWN'].includes(row.state)) return 'not-asked';
    const resend = mayBeAtGateway(row);
    const decision = await gate.check({ kind: 'payout', id }, resend ? 'resend' : 'first');
    if (decision.ok && decision.clearance) return decision.clearance;
    await this.auditRefusal('payout', id, decision);
    const reason = decision.ok ? 'the approval gate gave no clearance' : decision.message;
    if (resend) {
      await this.journal.markUnknown('payout', id, `not sent again: ${reason}; it may be at the gateway already, so it is read with GET until the gateway answers`, this.now(), true);
    } else if (await this.journal.markHeld('payout', id, reason, 'approvals')) {
      this.onStatus({ kind: 'payout', id, status: 'HELD', previousStatus: row.status, final: false, source: 'local', observedAt: this.now(), batchId: null });
    }
    return 'refused';
  }

  /**
   * A single payout under dual control: the gate's yes is asked again at the moment the create would
   * leave (ApprovalClearance); when it no longer holds, nothing was sent and the gate is asked anew, so
   * the payout goes under the approvals and policy of its send, or is held. A yes that does not cover the row
   * three times in a row (its rows and the journal disagree) holds it too: never a loop that sends nothing.
   */
  async sendPayout(id: string, signal: AbortSignal): Promise<SendOutcome> {
    for (let uncovered = 0; ; ) {
      const clearance = await this.payoutApproved(id);
      if (clearance === 'refused') return 'not-unsent';
      if (clearance === 'not-asked') return this.sender.send(id, signal);
      const outcome = await this.sender.send(id, signal, { approved: (row) => (clearance.stillValid() ? clearance.bodyFor(row) : null) });
      if (outcome !== 'unapproved') return outcome;
      if (clearance.stillValid() && ++uncovered >= 3) {
        const reason = 'Nothing was sent: the approvals cover another payout than the one in the journal now';
        if (!(await this.journal.markHeld('payout', id, reason, 'approvals'))) await this.journal.markUnknown('payout', id, `not sent again: ${reason}`, this.now(), true);
        return 'not-unsent';
      }
    }
  }

  /** Dual control for a batch run about to create rows (first sends, or only re-sends): its clearance, or why not. */
  async batchClearance(batchId: string, need: 'first' | 'resend'): Promise<{ refusal: string } | { refusal: null; clearance: ApprovalClearance | null }> {
    const decision = await this.gate.check({ kind: 'batch', id: batchId }, need);
    if (decision.ok && decision.clearance) return { refusal: null, clearance: decision.clearance };
    await this.auditRefusal('batch', batchId, decision);
    return { refusal: decision.ok ? 'the approval gate gave no clearance' : decision.message };
  }

  private async auditRefusal(kind: 'payout' | 'batch', id: string, decision: Awaited<ReturnType<ApprovalGatePort['check']>>): Promise<void> {
    await this.journal.audit({
      actor: 'approvals',
      action: 'approval.refused',
      subject: id,
      details: { kind, code: decision.code, message: decision.message, required: decision.verdict?.requirement.required ?? null, approvedBy: decision.verdict?.approvedBy ?? [] },
    });
  }
}
