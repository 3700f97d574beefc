// A period statement per currency that reconciles with the gateway's balances. From the opening
// balance read to the closing one, the total (available + reserved) moves only by what was processed: payouts paid,
// their fees, returns and payins (movements.ts). So:
//   expected closing = opening − paid − fees + returned + payins (of the period)
//                      ± what moved between a balance read and the period's edge (when no read falls on the edge)
// and what the closing read differs from that is listed as unexplained: a payment this desk never sent (another
// system with the same merchant), a top-up, a charge. A payment counts in the period of its processedAt.
import type { Money, PayoutTally, StatementBalance, StatementCurrency, StatementLine, StatementView } from '../../contract/api';
import type { DeskJournal } from '../journal/port';
import type { BalanceSnapshot } from '../journal/types';
import { exactSum, iso, money, type DecimalsOf } from '../desk/convert';
import { movementsOf, type Movement, type Reservation } from './movements';

/** Clocks of desk and gateway differ a little: payments are asked for from a day before the window. */
const CLOCK_SLACK_MS = 86_400_000;

export interface StatementPeriod {
  from: number;
  to: number;
  currencyCode?: string | undefined;
}

/** A fresh read of the gateway's balances for a period that ends now, or why there is none. */
export type ClosingRead = { snapshots: BalanceSnapshot[] } | { error: string } | null;

const day = (ms: number) => iso(ms).replace('T', ' ').slice(0, 16) + ' UTC';

export async function buildStatement(journal: DeskJournal, decimalsOf: DecimalsOf, period: StatementPeriod, closingRead: ClosingRead, now: number): Promise<StatementView> {
  return (await statementParts(journal, decimalsOf, period, closingRead, now, false)).view;
}

/** The statement and, per currency, the movements of the period in time order (the exports list them). */
export async function buildStatementWithEntries(
  journal: DeskJournal,
  decimalsOf: DecimalsOf,
  period: StatementPeriod,
  closingRead: ClosingRead,
  now: number,
): Promise<{ view: StatementView; entries: Map<string, Movement[]> }> {
  return statementParts(journal, decimalsOf, period, closingRead, now, true);
}

async function statementParts(
  journal: DeskJournal,
  decimalsOf: DecimalsOf,
  period: StatementPeriod,
  closingRead: ClosingRead,
  now: number,
  withEntries: boolean,
): Promise<{ view: StatementView; entries: Map<string, Movement[]> }> {
  const { from, to } = period;
  const cut = Math.min(to, now);
  const fresh = closingRead && 'snapshots' in closingRead ? new Map(closingRead.snapshots.map((s) => [s.currencyCode, s])) : new Map<string, BalanceSnapshot>();
  const known = (await journal.latestBalances()).map((b) => b.currencyCode);
  const wanted = (code: string) => period.currencyCode === undefined || code === period.currencyCode;
  const openings = new Map<string, { snap: BalanceSnapshot; firstRead: boolean }>();
  const closings = new Map<string, { snap: BalanceSnapshot; source: StatementBalance['source'] }>();
  for (const code of known.filter(wanted)) {
    const before = await journal.balanceAt(code, from);
    const first = before ? null : (await journal.balanceSeries(code, from, cut + 1))[0];
    if (before) openings.set(code, { snap: before, firstRead: false });
    else if (first) openings.set(code, { snap: first, firstRead: true });
    const closing = fresh.get(code) ?? (await closingReadOf(journal, code, to, cut));
    if (closing) closings.set(code, { snap: closing, source: fresh.has(code) ? 'gateway' : 'read' });
  }
  const edges = [...openings.values(), ...closings.values()].map((e) => e.snap.observedAt);
  const since = Math.min(from, ...edges) - CLOCK_SLACK_MS;
  const { movements, reservations } = movementsOf(await journal.statementPayments(since, Math.max(cut, ...edges)));
  const codes = new Set([...openings.keys(), ...movements.filter((m) => m.at >= from && m.at < to).map((m) => m.currencyCode)].filter(wanted));
  const currencies: StatementCurrency[] = [];
  const entries = new Map<string, Movement[]>();
  for (const code of [...codes].sort()) {
    // Ties (a payout and its fee) by id, in code-unit order: a locale's order is not needed and costs more.
    if (withEntries) entries.set(code, movements.filter((m) => m.currencyCode === code && m.at >= from && m.at < to).sort((a, b) => a.at - b.at || (a.paymentId < b.paymentId ? -1 : a.paymentId > b.paymentId ? 1 : 0)));
    currencies.push(
      currencyStatement(code, decimalsOf, period, {
        opening: openings.get(code) ?? null,
        closing: closings.get(code) ?? null,
        closingError: closingRead && 'error' in closingRead ? closingRead.error : null,
        movements: movements.filter((m) => m.currencyCode === code),
        reservations: reservations.filter((r) => r.currencyCode === code),
        cut,
      }),
    );
  }
  return { view: { from: iso(from), to: iso(to), generatedAt: iso(now), currencies, issued: null }, entries };
}

/**
 * The read a closed period closes on: whichever of the last read at or before its end and the first after it is
 * nearer the end (the lines then say what moved between the two). A period not over yet: the last read until now.
 */
async function closingReadOf(journal: DeskJournal, code: string, to: number, cut: number): Promise<BalanceSnapshot | null> {
  const before = await journal.balanceAt(code, cut);
  if (cut < to) return before;
  const after = (await journal.balanceSeries(code, to + 1))[0] ?? null;
  if (!before || !after) return before ?? after;
  return after.observedAt - to < to - before.observedAt ? after : before;
}

interface CurrencyInputs {
  opening: { snap: BalanceSnapshot; firstRead: boolean } | null;
  closing: { snap: BalanceSnapshot; source: StatementBalance['source'] } | null;
  closingError: string | null;
  movements: Movement[];
  reservations: Reservation[];
  cut: number;
}

function currencyStatement(code: string, decimalsOf: DecimalsOf, { from, to }: StatementPeriod, input: CurrencyInputs): StatementCurrency {
  const m = (minor: number): Money => money(minor, code, decimalsOf);
  const add = (a: number, b: number) => exactSum(a, b, code, "statement's figures");
  const sum = (list: readonly Movement[], pick: (x: Movement) => number = (x) => x.deltaMinor) => list.reduce((total, x) => add(total, pick(x)), 0);
  const inPeriod = input.movements.filter((x) => x.at >= from && x.at < to);
  const tally = (kind: Movement['kind']): PayoutTally => {
    const of = inPeriod.filter((x) => x.kind === kind);
    return { count: of.length, amount: m(sum(of, (x) => x.amountMinor)) };
  };
  const balance = (snap: BalanceSnapshot, source: StatementBalance['source']): StatementBalance => ({
    available: m(snap.availableMinor),
    reserved: m(snap.reservedMinor),
    total: m(add(snap.availableMinor, snap.reservedMinor)),
    observedAt: iso(snap.observedAt),
    source,
  });
  const lines: StatementLine[] = [];
  const line = (kind: StatementLine['kind'], amount: number | null, text: string) => lines.push({ kind, amount: amount === null ? null : m(amount), text });

  const { opening, closing } = input;
  let expected: number | null = null;
  if (!opening) {
    line('noOpening', null, `No balance of ${code} was read before ${day(input.cut)}: there is nothing to start from. Read the balances ("Refresh" on Balances) and the next statement starts there.`);
  } else {
    const o = opening.snap.observedAt;
    if (opening.firstRead) line('firstRead', null, `No balance was read before the period: the opening is the desk's first read, of ${day(o)}. What moved before it is not covered.`);
    // A read at moment T includes what was processed at T.
    const within = (a: number, b: number) => input.movements.filter((x) => x.at >= a && x.at <= b);
    const before = o < from ? sum(input.movements.filter((x) => x.at > o && x.at < from)) : -sum(within(from, o));
    if (before !== 0) line('beforePeriod', before, o < from ? `Processed between the opening read (${day(o)}) and the start of the period` : `Processed in the period before the opening read (${day(o)}): already in the opening`);
    expected = add(add(add(opening.snap.availableMinor, opening.snap.reservedMinor), sum(inPeriod)), before);
    if (closing) {
      const k = closing.snap.observedAt;
      const after = k >= to ? sum(within(to, k)) : -sum(input.movements.filter((x) => x.at > k && x.at < to));
      if (after !== 0) line('afterPeriod', after, k >= to ? `Processed between the end of the period and the closing read (${day(k)})` : `Processed in the period after the closing read (${day(k)}): not yet in it`);
      expected = add(expected, after);
    }
  }
  if (!closing) {
    line('noClosing', null, `No balance of ${code} was read by ${day(input.cut)}${input.closingError ? `, and the gateway could not be asked: ${input.closingError}` : ''}.`);
  } else if (closing.source === 'read' && closing.snap.observedAt !== to) {
    line('closingRead', null, `The closing balance is the ${closing.snap.observedAt > to ? 'first read after' : 'last read before'} the end, of ${day(closing.snap.observedAt)}${input.closingError ? ` (the gateway could not be asked: ${input.closingError})` : ''}.`);
  }
  const unknownPaid = inPeriod.filter((x) => x.kind === 'paid' && x.paidTimeUnknown);
  if (unknownPaid.length > 0) line('paidTimeUnknown', null, `${unknownPaid.length === 1 ? '1 returned payout was' : `${unknownPaid.length} returned payouts were`} never seen paid by this desk: counted as paid when returned.`);
  if (closing) reservedLines(code, closing.snap, input.reservations, m, add, line);

  const difference = closing && expected !== null ? add(add(closing.snap.availableMinor, closing.snap.reservedMinor), -expected) : null;
  if (difference !== null && difference !== 0) {
    line('unexplained', difference, 'Not explained by this desk\'s payments: a payment it never sent (another system using the same merchant), a top-up or a charge of the gateway, or a payment processed at the edge of a balance read.');
  }
  return {
    currencyCode: code,
    opening: opening ? balance(opening.snap, 'read') : null,
    closing: closing ? balance(closing.snap, closing.source) : null,
    paid: tally('paid'),
    fees: m(sum(inPeriod.filter((x) => x.kind === 'fee'), (x) => x.amountMinor)),
    failed: tally('failed'),
    returned: tally('returned'),
    payins: tally('payin'),
    expectedClosing: expected === null ? null : m(expected),
    difference: difference === null ? null : m(difference),
    reconciled: difference === 0,
    lines,
  };
}

/** What the closing read holds in reserved, against this desk's payouts accepted and not processed at that moment. */
function reservedLines(
  code: string,
  snap: BalanceSnapshot,
  reservations: readonly Reservation[],
  m: (minor: number) => Money,
  add: (a: number, b: number) => number,
  line: (kind: StatementLine['kind'], amount: number | null, text: string) => void,
): void {
  const k = snap.observedAt;
  const open = reservations.filter((r) => r.acceptedAt <= k && (r.processedAt === null || r.processedAt > k));
  const held = open.reduce((total, r) => add(total, add(r.amountMinor, r.feeCurrencyCode === code ? r.feeMinor : 0)), 0);
  if (open.length > 0) line('inFlight', null, `${open.length === 1 ? '1 payout was' : `${open.length} payouts were`} accepted and not yet processed at the closing read: ${m(held).amount} ${code} with fees, held in reserved.`);
  if (held !== snap.reservedMinor) {
    line('reservedDiffers', null, `Reserved at the closing read is ${m(snap.reservedMinor).amount} ${code}; this desk's payouts in flight account for ${m(held).amount}. The rest is held for payments this desk did not send, or a payout reserved nothing (not enough funds).`);
  }
}
