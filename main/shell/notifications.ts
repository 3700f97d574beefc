// Desktop notifications raised by main (never by web content: its permission requests are denied).
// Which events deserve one is a pure decision, tested without Electron.
import type { BatchProgress, DeskNotification, PaymentStatusChanged } from '../../preload/api';

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

export function notificationForPayment(change: PaymentStatusChanged): DeskNotification | null {
  // The gateway holds our id with another amount or currency: not final, not a failure, but a person must look.
  if (change.status.toUpperCase() === 'MISMATCH') {
    return { level: 'warning', title: 'Payout needs attention', body: `The gateway holds payment ${change.id} with a different amount or currency` };
  }
  if (!change.final || !FAILURE_STATUSES.has(change.status.toUpperCase())) return null;
  return { level: 'error', title: `${change.kind === 'payin' ? 'Payin' : 'Payout'} ${change.status.toLowerCase()}`, body: `Payment ${change.id}` };
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
      // Payments inside a batch are summarised by the batch notification instead, except a mismatch.
      return change.batchId && change.status.toUpperCase() !== 'MISMATCH' ? null : notificationForPayment(change);
    },
  };
}
