// Planning a retry batch: checking that the reviewed attempts are still exactly the retryable ones, and building
// the new attempts that retry them. Shared by the SQLite and PostgreSQL journals so that both refuse and build a
// retry alike; each still finds the retryable attempts and stores the new batch with its own SQL, in its own
// transaction around this.
import { retryBatchSha256 } from '../journal/retry-digest';
import { JournalError } from '../journal/shared';
import type { NewPayment, PaymentRecord } from '../journal/types';

export interface RetryPlan {
  /** One new attempt per retried one, in the same order: a new id, the same intent and payee, linked by retryOf. */
  rows: NewPayment[];
  /** What the retry batch is stored with (retryBatchSha256). */
  sha256: string;
}

/**
 * Plans the retry of `retryable` (the attempts of batch `sourceBatchId` that may be retried now) as a person
 * reviewed it. Throws NOTHING_TO_RETRY when there is none, RETRY_ROWS_CHANGED when `reviewedIds` are not exactly
 * those attempts (nothing is then made).
 */
export function planRetryBatch(sourceBatchId: string, retryable: readonly PaymentRecord[], reviewedIds: readonly string[], newId: () => string): RetryPlan {
  const reviewed = new Set(reviewedIds);
  if (retryable.length === 0) throw new JournalError('NOTHING_TO_RETRY', 'No row of this batch can be retried now', []);
  if (reviewed.size !== retryable.length || retryable.some((p) => !reviewed.has(p.id))) {
    throw new JournalError('RETRY_ROWS_CHANGED', `The rows to retry changed since they were reviewed (${retryable.length} now, ${reviewed.size} reviewed)`, retryable.map((p) => p.id));
  }
  const rows: NewPayment[] = retryable.map((p) => ({
    id: newId(), intentId: p.intentId ?? undefined, retryOf: p.id, amountMinor: p.amountMinor, currencyCode: p.currencyCode,
    accountName: p.accountName, accountNumber: p.accountNumber, paymentOperatorCode: p.paymentOperatorCode, paymentMethodCode: p.paymentMethodCode,
    emailAddress: p.emailAddress, callbackUrl: p.callbackUrl ?? undefined, reference: p.reference ?? undefined, rowNumber: p.rowNumber ?? undefined,
    ...(p.details ? { details: p.details } : {}),
  }));
  return { rows, sha256: retryBatchSha256(sourceBatchId, rows) };
}
