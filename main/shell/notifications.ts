// Desktop notifications raised by main (never by web content: its permission requests are denied).
// Which events deserve one is a pure decision, tested without Electron.
import type { BatchProgress, DeskNotification, PaymentStatusChanged } from '../../preload/api';

const FAILURE_STATUSES = new Set(['FAILED', 'REJECTED', 'CANCELLED', 'EXPIRED', 'RETURNED']);

export function notificationForBatch(progress: BatchProgress, previousState: string | undefined): DeskNotification | null {
  const ended = progress.state === 'COMPLETED' || progress.state === 'FAILED' || progress.state === 'CANCELLED';
  if (!ended || previousState === progress.state) return null;
  const word = progress.state === 'COMPLETED' ? 'finished' : progress.state === 'CANCELLED' ? 'cancelled' : 'stopped';
  return {
    level: progress.failed > 0 || progress.state !== 'COMPLETED' ? 'warning' : 'success',
    title: `Batch ${word}`,
    body: `${progress.done} of ${progress.total} final, ${progress.failed} failed`,
  };
}

export function notificationForPayment(change: PaymentStatusChanged): DeskNotification | null {
  if (!change.final || !FAILURE_STATUSES.has(change.status.toUpperCase())) return null;
  return { level: 'error', title: `${change.kind === 'payin' ? 'Payin' : 'Payout'} ${change.status.toLowerCase()}`, body: `Payment ${change.id}` };
}

/** Remembers each batch's last state so one batch gives one "finished" notification. */
export function createNotificationPolicy() {
  const lastState = new Map<string, string>();
  return {
    onBatchProgress(progress: BatchProgress): DeskNotification | null {
      const note = notificationForBatch(progress, lastState.get(progress.batchId));
      lastState.set(progress.batchId, progress.state);
      return note;
    },
    onPaymentStatus(change: PaymentStatusChanged): DeskNotification | null {
      // Payments inside a batch are summarised by the batch notification instead.
      return change.batchId ? null : notificationForPayment(change);
    },
  };
}
