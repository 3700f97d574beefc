// Desktop notifications raised by main (never by web content: its permission requests are denied).
// Which events deserve one is a pure decision, tested without Electron.
import type { BatchProgress, DeskNotification, PaymentStatusChanged } from '../../contract/api';

const FAILURE_STATUSES = new Set(['FAILED', 'REJECTED', 'CANCELLED', 'EXPIRED', 'RETURNED']);

/**
 * A batch has finished for the user when it is cancelled or stopped, or when it is COMPLETED (every
 * row sent) and none of its payouts is still pending at the gateway: "finished" with a failure count
 * that can still grow would tell the user the wrong thing.
 */
function hasFinished(progress: BatchProgress): boolean {
  if (progress.state === 'COMPLETED') return progress.pending === 0;
  return progress.state === 'FAILED' || progress.state === 'CANCELLED';
}

/** `notifiedState`: the state this batch was last notified for, if any (one notification per end). */
export function notificationForBatch(progress: BatchProgress, notifiedState: string | undefined): DeskNotification | null {
  if (!hasFinished(progress) || notifiedState === progress.state) return null;
  const word = progress.state === 'COMPLETED' ? 'finished' : progress.state === 'CANCELLED' ? 'cancelled' : 'stopped';
  return {
    level: progress.failed > 0 || progress.state !== 'COMPLETED' ? 'warning' : 'success',
    title: `Batch ${word}`,
    body: `${progress.done} of ${progress.total} final, ${progress.failed} failed`,
  };
}

/** States in which a payout waits for a person: each is told, also inside a batch (a batch notification would not say it). */
const ATTENTION: Record<string, (id: string) => DeskNotification> = {
  // The gateway holds our id with another amount or currency: not final, not a failure, but a person must look.
  MISMATCH: (id) => ({ level: 'warning', title: 'Payout needs attention', body: `The gateway holds payment ${id} with a different amount or currency` }),
  MISSING: (id) => ({ level: 'warning', title: 'Payout missing at the gateway', body: `The gateway accepted payment ${id} and now says it does not know it` }),
  HELD: (id) => ({ level: 'warning', title: 'Payout held', body: `Payment ${id} was not sent: fix the cause, then release or discard it` }),
};

export function notificationForPayment(change: PaymentStatusChanged): DeskNotification | null {
  const status = change.status.toUpperCase();
  const attention = ATTENTION[status];
  if (attention) return attention(change.id);
  if (!change.final || !FAILURE_STATUSES.has(status)) return null;
  return { level: 'error', title: `${change.kind === 'payin' ? 'Payin' : 'Payout'} ${change.status.toLowerCase()}`, body: `Payment ${change.id}` };
}

/** A payout that was paid and is now returned: news even after its batch was reported finished. */
function isReturnAfterPayment(change: PaymentStatusChanged): boolean {
  return change.status.toUpperCase() === 'RETURNED' && change.previousStatus?.toUpperCase() === 'SUCCESS';
}

/** Remembers which batches were notified, so one batch gives one "finished" notification. */
export function createNotificationPolicy() {
  const notified = new Map<string, string>();
  return {
    onBatchProgress(progress: BatchProgress): DeskNotification | null {
      // Running again (resumed): its next end is news again.
      if (progress.state === 'QUEUED' || progress.state === 'RUNNING' || progress.state === 'PAUSED') notified.delete(progress.batchId);
      const note = notificationForBatch(progress, notified.get(progress.batchId));
      if (note) notified.set(progress.batchId, progress.state);
      return note;
    },
    onPaymentStatus(change: PaymentStatusChanged): DeskNotification | null {
      // Payments inside a batch are summarised by the batch notification instead, except what needs a person
      // and a payout returned after it was paid.
      const own = !change.batchId || change.status.toUpperCase() in ATTENTION || isReturnAfterPayment(change);
      return own ? notificationForPayment(change) : null;
    },
  };
}
