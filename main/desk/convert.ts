// Conversions from service records to the contract's shapes: minor units become decimal strings
// with their currency, epoch milliseconds become ISO text, raw gateway JSON becomes JsonValue.
import type { HistoryRow, JsonValue, Money, PaymentDetail, StatusEventView } from '../../contract/api';
import { currencyDecimals } from '../domain/currencies';
import { formatMinor, parseMinor, MoneyError } from '../domain/money';
import type { DeskJournal, PaymentRecord, StatusEvent } from '../journal';
import { DeskError } from './services';
import { scheduledHoldText } from '../schedules/schedule';

/** Currency decimals: the gateway's list when the desk has read it, else ISO 4217. */
export type DecimalsOf = (currencyCode: string) => number;

export function decimalsFrom(gatewayDecimals: ReadonlyMap<string, number> | undefined): DecimalsOf {
  return (code) => currencyDecimals(code, gatewayDecimals);
}

export function money(minor: number, currencyCode: string, decimalsOf: DecimalsOf): Money {
  return { amount: formatMinor(minor, decimalsOf(currencyCode)), currencyCode };
}

export function optionalMoney(minor: number | null | undefined, currencyCode: string | null | undefined, decimalsOf: DecimalsOf): Money | null {
  return minor === null || minor === undefined || !currencyCode ? null : money(minor, currencyCode, decimalsOf);
}

/** Parses an amount typed by the user; a bad one becomes a field error naming the field. */
export function minorOf(amount: string, currencyCode: string, decimalsOf: DecimalsOf, field = 'amount'): number {
  try {
    return parseMinor(amount, decimalsOf(currencyCode));
  } catch (error) {
    if (error instanceof MoneyError) throw new DeskError(error.code, `${field}: ${error.message}`);
    throw error;
  }
}

/**
 * a + b in minor units, refused past Number.MAX_SAFE_INTEGER (either sign): a sum that left the exact integers would
 * be shown rounded. `what` names the figure for the refusal ("Overview's total", "statement's payouts").
 */
export function exactSum(a: number, b: number, currencyCode: string, what: string): number {
  const sum = a + b;
  if (!Number.isSafeInteger(sum)) {
    throw new DeskError('AMOUNT_RANGE', `The ${what} in ${currencyCode} is beyond ${Number.MAX_SAFE_INTEGER} minor units, more than the desk adds exactly`);
  }
  return sum;
}

export const iso = (ms: number): string => new Date(ms).toISOString();
export const isoOrNull = (ms: number | null | undefined): string | null => (ms === null || ms === undefined ? null : iso(ms));

/** Any value as JSON data (drops functions and undefined, turns odd numbers into null). */
export function toJson(value: unknown): JsonValue {
  if (value === undefined) return null;
  try {
    return JSON.parse(JSON.stringify(value)) as JsonValue;
  } catch {
    return null;
  }
}

export function historyRow(p: PaymentRecord, decimalsOf: DecimalsOf): HistoryRow {
  return {
    kind: p.kind,
    id: p.id,
    status: p.status,
    localState: p.state,
    final: p.isFinal,
    money: money(p.amountMinor, p.currencyCode, decimalsOf),
    fee: optionalMoney(p.feeMinor, p.feeCurrencyCode, decimalsOf),
    accountName: p.accountName,
    accountNumber: p.accountNumber,
    emailAddress: p.emailAddress,
    batchId: p.batchId,
    isTest: p.isTest,
    createdAt: iso(p.createdAt),
    updatedAt: iso(p.updatedAt),
  };
}

export function statusEventView(e: StatusEvent): StatusEventView {
  return { status: e.status, source: e.source, observedAt: iso(e.observedAt) };
}

export function paymentDetail(p: PaymentRecord, events: StatusEvent[], decimalsOf: DecimalsOf, attempts: PaymentRecord[] = [], retriedAs: string | null = null): PaymentDetail {
  const withRaw = [...events].reverse().find((e) => e.source !== 'local' && e.raw !== null && e.raw !== undefined);
  return {
    ...historyRow(p, decimalsOf),
    paymentOperatorCode: p.paymentOperatorCode,
    failureReason: p.failureReason ?? (p.state === 'REJECTED' || p.state === 'MISMATCH' ? p.lastError : null),
    processedAt: p.processedAt,
    reason: reasonOf(p),
    intentId: p.intentId,
    attempts: attempts.map((a) => ({ idPayout: a.id, status: a.status, localState: a.state, createdAt: iso(a.createdAt) })),
    retryOf: p.retryOf,
    retriedAs,
    events: events.map(statusEventView),
    raw: toJson(withRaw?.raw ?? null),
  };
}

/** What a person is told about a payout that waits for them or for the desk (held, unknown, missing, not yet sent). */
export function reasonOf(p: PaymentRecord): string | null {
  switch (p.state) {
    case 'HELD':
      // Sent on a date (the calendar): it waits for its time, not for a fix; a release by hand is refused.
      if (p.lastError?.startsWith(scheduledHoldText(''))) return `Scheduled: released on ${p.lastError.slice(scheduledHoldText('').length)}, not before. Move or cancel it on the Calendar.`;
      return `Held, not sent: ${p.lastError ?? 'a person must act'}. Release it after the fix, or discard it.`;
    case 'UNKNOWN':
      return `Outcome unknown — checking with the gateway${p.lastError ? ` (${p.lastError})` : ''}. It is never sent under a new id while unknown.`;
    case 'MISSING':
      return `The gateway accepted it and now says it does not know it${p.notFoundSince ? ` (since ${iso(p.notFoundSince)})` : ''}. Ask the gateway; the desk keeps checking.`;
    case 'DISCARDED':
      return `Discarded, never sent${p.lastError ? `: ${p.lastError}` : ''}.`;
    case 'QUEUED':
    case 'SENDING':
      return p.lastError;
    default:
      return null;
  }
}

/** A payment with its status history (and, for a payout, its intent's attempts) from the journal, or NOT_FOUND. */
export async function detailOf(journal: DeskJournal, kind: 'payout' | 'payin', id: string, decimalsOf: DecimalsOf) {
  const record = await journal.getPayment(kind, id);
  if (!record) throw new DeskError('NOT_FOUND', `No ${kind} with id ${id} in this profile's journal`);
  const attempts = record.intentId ? await journal.intentAttempts(record.intentId) : [];
  return paymentDetail(record, await journal.timeline(kind, id), decimalsOf, attempts, kind === 'payout' ? await journal.retriedAs(id) : null);
}
