// Mapping between SQLite rows (snake_case) and the journal's records.
import type { StatusSource } from '../domain/status';
import type { BatchRecord, StoredBatchState, CurrencyTotal, PaymentKind, PaymentRecord, PaymentState, StatusEvent } from '../journal/types';

export interface PaymentRow {
  pk: number;
  kind: PaymentKind;
  id: string;
  batch_id: string | null;
  row_number: number | null;
  amount_minor: number;
  currency_code: string;
  account_name: string;
  account_number: string;
  payment_operator_code: string;
  payment_method_code: string;
  email_address: string;
  callback_url: string | null;
  reference: string | null;
  state: PaymentState;
  gateway_status: string | null;
  status: string;
  is_final: number;
  fee_minor: number | null;
  fee_currency_code: string | null;
  failure_reason: string | null;
  processed_at: string | null;
  is_test: number | null;
  last_error: string | null;
  attempts: number;
  created_at: number;
  updated_at: number;
  accepted_at: number | null;
  final_at: number | null;
  next_poll_at: number | null;
  details_json: string | null;
  intent_id: string | null;
  retry_of: string | null;
  unknown_since: number | null;
  resend_refused: number;
  not_found_since: number | null;
  not_found_reads: number;
}

export function toPayment(r: PaymentRow): PaymentRecord {
  return {
    kind: r.kind,
    id: r.id,
    intentId: r.intent_id,
    retryOf: r.retry_of,
    batchId: r.batch_id,
    rowNumber: r.row_number,
    amountMinor: r.amount_minor,
    currencyCode: r.currency_code,
    accountName: r.account_name,
    accountNumber: r.account_number,
    paymentOperatorCode: r.payment_operator_code,
    paymentMethodCode: r.payment_method_code,
    emailAddress: r.email_address,
    callbackUrl: r.callback_url,
    reference: r.reference,
    state: r.state,
    gatewayStatus: r.gateway_status,
    status: r.status,
    isFinal: r.is_final === 1,
    feeMinor: r.fee_minor,
    feeCurrencyCode: r.fee_currency_code,
    failureReason: r.failure_reason,
    processedAt: r.processed_at,
    isTest: r.is_test === null ? null : r.is_test === 1,
    lastError: r.last_error,
    unknownSince: r.unknown_since,
    notFoundSince: r.not_found_since,
    attempts: r.attempts,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    acceptedAt: r.accepted_at,
    finalAt: r.final_at,
    nextPollAt: r.next_poll_at,
    details: r.details_json === null ? null : (JSON.parse(r.details_json) as Record<string, unknown>),
  };
}

export interface StatusEventRow {
  seq: number;
  kind: PaymentKind;
  id: string;
  status: string;
  source: StatusSource;
  observed_at: number;
  raw_json: string | null;
}

export function toStatusEvent(r: StatusEventRow): StatusEvent {
  return {
    seq: r.seq,
    kind: r.kind,
    id: r.id,
    status: r.status,
    source: r.source,
    observedAt: r.observed_at,
    raw: r.raw_json === null ? null : (JSON.parse(r.raw_json) as unknown),
  };
}

export interface BatchRow {
  id: string;
  file_name: string;
  sha256: string;
  row_count: number;
  totals_json: string;
  state: StoredBatchState;
  pause_reason: string | null;
  created_at: number;
  updated_at: number;
}

export function toBatch(r: BatchRow): BatchRecord {
  return {
    id: r.id,
    fileName: r.file_name,
    sha256: r.sha256,
    rowCount: r.row_count,
    totals: JSON.parse(r.totals_json) as CurrencyTotal[],
    state: r.state,
    pauseReason: r.pause_reason,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}
