// The status observation a gateway read is recorded as. Shared by the sender (the read that answers a create)
// and the poller (a later GET): each decides the status, its finality and the next read its own way, but what
// the gateway reported is recorded alike.
import type { StatusSource } from '../domain/status';
import type { StatusObservation } from '../journal';
import type { GatewayStatusRead } from './ports';

/** What the caller concluded from a read. */
export interface ObservedStatus {
  status: string;
  source: StatusSource;
  isFinal: boolean;
  nextPollAt: number | null;
}

/** The observation to journal: the caller's conclusion, with the read's fee, failure reason, processing time, test flag and raw body. */
export function statusObservation(read: GatewayStatusRead, observed: ObservedStatus): StatusObservation {
  return {
    status: observed.status,
    source: observed.source,
    isFinal: observed.isFinal,
    feeMinor: read.feeMinor,
    feeCurrencyCode: read.feeCurrencyCode,
    failureReason: read.failureReason,
    processedAt: read.processedAt,
    isTest: read.isTest,
    raw: read.raw,
    nextPollAt: observed.nextPollAt,
  };
}
