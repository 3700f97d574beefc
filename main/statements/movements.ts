// What moved a balance, and when, from the journal's payments (statementPayments): the statement's raw material.
// The gateway's balance has two parts: `available`, and `reserved` for payouts in flight (amount + fee, from their
// acceptance). Their sum, the total, changes only when a payment is processed: a paid payout takes amount and fee,
// a failed one gives the reservation back (nothing leaves), a return brings the amount back (the fee stays
// charged), a paid payin brings its amount. So every movement is dated by the gateway's processedAt.
import type { StatementPaymentRow } from '../journal/types';

export type MovementKind = 'paid' | 'fee' | 'failed' | 'returned' | 'payin';

export interface Movement {
  kind: MovementKind;
  /** Stable across reads: payment kind, id and movement kind ("payout:P-1:fee"); accounting exports key on it. */
  movementId: string;
  paymentId: string;
  currencyCode: string;
  /** What it did to the total, in minor units: negative for money that left. 0 for a failed payout. */
  deltaMinor: number;
  /** The payment's amount (the fee's for `fee`), for the period's tallies. */
  amountMinor: number;
  at: number;
  /** A returned payout whose payment the desk never saw: dated with its return. */
  paidTimeUnknown?: true;
}

/** A payout the gateway holds money for: accepted, not yet processed (the reservation of amount + fee). */
export interface Reservation {
  paymentId: string;
  currencyCode: string;
  amountMinor: number;
  feeCurrencyCode: string | null;
  feeMinor: number;
  acceptedAt: number;
  /** When it was processed (paid or failed); null while it is not. */
  processedAt: number | null;
}

const parseTime = (text: string | null | undefined): number | null => {
  if (typeof text !== 'string') return null;
  const ms = Date.parse(text);
  return Number.isFinite(ms) ? ms : null;
};

/** The gateway's processedAt in the first SUCCESS body that carries one: when a returned payout was paid. */
function paidAtOf(successRaw: readonly string[]): number | null {
  for (const text of successRaw) {
    try {
      const body = JSON.parse(text) as { process?: { processedAt?: unknown } };
      const at = parseTime(typeof body.process?.processedAt === 'string' ? body.process.processedAt : null);
      if (at !== null) return at;
    } catch {
      // A body that is not JSON says nothing about when.
    }
  }
  return null;
}

export function movementsOf(rows: readonly StatementPaymentRow[]): { movements: Movement[]; reservations: Reservation[] } {
  const movements: Movement[] = [];
  const reservations: Reservation[] = [];
  for (const p of rows) {
    const status = p.status.toUpperCase();
    const processedAt = p.isFinal ? parseTime(p.processedAt) : null;
    const mid = (kind: MovementKind) => `${p.kind}:${p.id}:${kind}`;
    const fee = (at: number) => {
      if (p.feeMinor && p.feeCurrencyCode) movements.push({ kind: 'fee', movementId: mid('fee'), paymentId: p.id, currencyCode: p.feeCurrencyCode, deltaMinor: -p.feeMinor, amountMinor: p.feeMinor, at });
    };
    if (p.kind === 'payin') {
      if (status === 'SUCCESS' && processedAt !== null) {
        movements.push({ kind: 'payin', movementId: mid('payin'), paymentId: p.id, currencyCode: p.currencyCode, deltaMinor: p.amountMinor, amountMinor: p.amountMinor, at: processedAt });
        fee(processedAt);
      }
      continue;
    }
    let paidAt: number | null = null;
    if (status === 'SUCCESS') paidAt = processedAt;
    if (status === 'RETURNED' && processedAt !== null) {
      paidAt = paidAtOf(p.successRaw);
      const unknown = paidAt === null;
      paidAt ??= processedAt;
      movements.push({ kind: 'paid', movementId: mid('paid'), paymentId: p.id, currencyCode: p.currencyCode, deltaMinor: -p.amountMinor, amountMinor: p.amountMinor, at: paidAt, ...(unknown ? { paidTimeUnknown: true as const } : {}) });
      fee(paidAt);
      movements.push({ kind: 'returned', movementId: mid('returned'), paymentId: p.id, currencyCode: p.currencyCode, deltaMinor: p.amountMinor, amountMinor: p.amountMinor, at: processedAt });
    } else if (paidAt !== null) {
      movements.push({ kind: 'paid', movementId: mid('paid'), paymentId: p.id, currencyCode: p.currencyCode, deltaMinor: -p.amountMinor, amountMinor: p.amountMinor, at: paidAt });
      fee(paidAt);
    } else if (p.isFinal && processedAt !== null) {
      // Failed, rejected, cancelled, expired: the reservation went back. A fee the gateway still reports was charged.
      movements.push({ kind: 'failed', movementId: mid('failed'), paymentId: p.id, currencyCode: p.currencyCode, deltaMinor: 0, amountMinor: p.amountMinor, at: processedAt });
      fee(processedAt);
    }
    // A final payout with no processedAt cannot be placed at a cut: left out rather than guessed.
    const settledAt = paidAt ?? processedAt;
    if (p.acceptedAt !== null && (!p.isFinal || settledAt !== null)) {
      reservations.push({
        paymentId: p.id,
        currencyCode: p.currencyCode,
        amountMinor: p.amountMinor,
        feeCurrencyCode: p.feeCurrencyCode,
        feeMinor: p.feeMinor ?? 0,
        acceptedAt: p.acceptedAt,
        processedAt: p.isFinal ? settledAt : null,
      });
    }
  }
  return { movements, reservations };
}
