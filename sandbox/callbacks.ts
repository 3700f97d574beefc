// Status-change callbacks: POST JSON to the payment's callbackUrl, retried with capped exponential backoff
// until a 2xx answer (or maxAttempts, when the config sets one). Callbacks only say "this changed"; the receiver reads the status with GET.
import type { CallbackRetry } from './config';
import type { TimerSet } from './timers';

export const CALLBACK_EVENT_TYPES = ['PAYOUT_STATUS_CHANGED', 'PAYIN_STATUS_CHANGED'] as const;
export type CallbackEventType = (typeof CALLBACK_EVENT_TYPES)[number];

export type CallbackPayload =
  | { eventType: 'PAYOUT_STATUS_CHANGED'; idPayout: string; sentAt: string }
  | { eventType: 'PAYIN_STATUS_CHANGED'; idPayin: string; sentAt: string };

export type CallbackAttempt = { at: string; httpStatus: number | null; error?: string };

export type CallbackRecord = {
  eventType: CallbackEventType;
  paymentId: string;
  /** The status that triggered this callback (not sent: the payload only names the payment). */
  status: string;
  url: string;
  attempts: CallbackAttempt[];
  delivered: boolean;
  gaveUp: boolean;
};

export class CallbackDispatcher {
  readonly records: CallbackRecord[] = [];
  private readonly inFlight = new Set<AbortController>();

  constructor(
    private readonly retry: CallbackRetry,
    private readonly timers: TimerSet,
  ) {}

  send(url: string, eventType: CallbackEventType, paymentId: string, status: string): void {
    const record: CallbackRecord = { eventType, paymentId, status, url, attempts: [], delivered: false, gaveUp: false };
    this.records.push(record);
    void this.attempt(record);
  }

  close(): void {
    for (const controller of this.inFlight) controller.abort();
    this.inFlight.clear();
  }

  private payload(record: CallbackRecord): CallbackPayload {
    const sentAt = new Date().toISOString();
    return record.eventType === 'PAYOUT_STATUS_CHANGED'
      ? { eventType: record.eventType, idPayout: record.paymentId, sentAt }
      : { eventType: record.eventType, idPayin: record.paymentId, sentAt };
  }

  private async attempt(record: CallbackRecord): Promise<void> {
    if (this.timers.isClosed) return;
    const controller = new AbortController();
    const timeout = setTimeout(() => controller.abort(), this.retry.timeoutMs);
    this.inFlight.add(controller);
    const attempt: CallbackAttempt = { at: new Date().toISOString(), httpStatus: null };
    record.attempts.push(attempt);
    try {
      const response = await fetch(record.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-version': '2' },
        body: JSON.stringify(this.payload(record)),
        signal: controller.signal,
      });
      attempt.httpStatus = response.status;
      await response.arrayBuffer().catch(() => undefined);
      if (response.ok) {
        record.delivered = true;
        return;
      }
    } catch (error) {
      attempt.error = error instanceof Error ? error.message : String(error);
    } finally {
      clearTimeout(timeout);
      this.inFlight.delete(controller);
    }
    this.scheduleRetry(record);
  }

  private scheduleRetry(record: CallbackRecord): void {
    const done = record.attempts.length;
    if (this.retry.maxAttempts !== null && done >= this.retry.maxAttempts) {
      record.gaveUp = true;
      return;
    }
    const delay = Math.min(this.retry.maxDelayMs, this.retry.initialDelayMs * this.retry.factor ** (done - 1));
    this.timers.after(Math.round(delay), () => void this.attempt(record));
  }
}
