// history:* — reads from the journal, so they work offline; exports are written in time slices.
import type { HistoryFilters, HistoryQuery as ContractQuery } from '../../contract/api';
import { exportHistoryCsvAsync, type HistoryExportRow } from '../csv/export';
import { TimeSlicer, yieldToEventLoop } from '../csv/time-slice';
import type { HistoryFilter, HistoryQuery, HistorySortKey, PaymentRecord } from '../journal';
import type { ProfileAreaService } from './profile-binding';
import type { DeskRuntime } from './runtime';
import { detailOf, historyRow, iso } from './convert';
import type { CurrencyCache } from './currency-cache';

/**
 * Rows counted past the end of the asked page. An exact total over a broad filter reads every match (up to a
 * second over 1,000,000 payouts, bench/pg-history.ts); the screen needs only enough to scroll on, so the count
 * stops this far ahead and the answer says `totalCapped` ("10,000+"). Scrolling further asks deeper pages,
 * whose count reaches further: the total grows as the table is read, never cutting off a row.
 */
export const HISTORY_COUNT_AHEAD = 10_000;

/**
 * Rows counted past the page when the screen searches a text. A search is for finding rows, and counting 10,000
 * matches of a text together with a filter reads some hundred thousand rows (text "person1" with USD and
 * PENDING/PROCESSING over 1,000,000 payouts: 67-80 ms on PostgreSQL, bench/pg-history.ts); 1,000 reads a tenth
 * of that. Filters alone are still counted 10,000 ahead.
 */
export const HISTORY_SEARCH_COUNT_AHEAD = 1_000;

/** The count limit the screen asks for a page that ends at `end` (offset + page size) under these filters. */
export function screenCountLimit(end: number, filter: HistoryFilter): number {
  return end + (filter.text?.trim() ? HISTORY_SEARCH_COUNT_AHEAD : HISTORY_COUNT_AHEAD);
}

const SORT_KEYS: Record<NonNullable<ContractQuery['sort']>['field'], HistorySortKey> = {
  createdAt: 'createdAt',
  updatedAt: 'updatedAt',
  amount: 'amountMinor',
  status: 'status',
  currencyCode: 'currencyCode',
};

function journalFilter(filters: HistoryFilters | undefined): HistoryFilter {
  const f = filters ?? {};
  return {
    ...(f.kinds?.length ? { kinds: f.kinds } : {}),
    ...(f.statuses?.length ? { statuses: f.statuses.map((s) => s.toUpperCase()) } : {}),
    ...(f.currencyCodes?.length ? { currencyCodes: f.currencyCodes } : {}),
    ...(f.from ? { from: Date.parse(f.from) } : {}),
    ...(f.to ? { to: Date.parse(f.to) } : {}),
    ...(f.batchId ? { batchId: f.batchId } : {}),
    ...(f.search?.trim() ? { text: f.search.trim() } : {}),
  };
}

export function historyService(rt: DeskRuntime, currencies: CurrencyCache): ProfileAreaService<'history'> {
  return {
    async query(profile, { filters, sort, offset = 0, limit = 100 }) {
      const journal = await rt.journalFor(profile.id);
      const decimalsOf = currencies.decimalsOf(profile.id);
      const filter = journalFilter(filters);
      const base: HistoryQuery = {
        ...filter, sortBy: SORT_KEYS[sort?.field ?? 'createdAt'], sortDir: sort?.direction ?? 'desc', pageSize: limit,
        countLimit: screenCountLimit(offset + limit, filter),
      };
      // The journal pages by page number; an offset between pages reads two pages and cuts.
      const first = Math.floor(offset / limit);
      const page = await journal.history({ ...base, page: first });
      let rows = page.rows;
      if (offset % limit !== 0) rows = [...rows, ...(await journal.history({ ...base, page: first + 1 })).rows];
      const start = offset - first * limit;
      const items = rows.slice(start, start + limit).map((r) => historyRow(r, decimalsOf));
      return { items, total: page.total, offset, limit, ...(page.totalCapped ? { totalCapped: true } : {}) };
    },
    async timeline(profile, { kind, id }) {
      return detailOf(await rt.journalFor(profile.id), kind, id, currencies.decimalsOf(profile.id));
    },
    async export(profile, { filters }) {
      // Read and written in time slices: a 100,000-row export must not stall the main process.
      const rows: HistoryExportRow[] = [];
      const slicer = new TimeSlicer(yieldToEventLoop);
      for await (const p of (await rt.journalFor(profile.id)).iterateHistory(journalFilter(filters))) {
        rows.push(historyExportRow(p));
        if (slicer.due()) await slicer.pause();
      }
      const content = await exportHistoryCsvAsync(rows);
      return { fileName: `payout-desk-history-${profile.id}-${new Date().toISOString().slice(0, 10)}.csv`, mimeType: 'text/csv', content };
    },
  };
}

function historyExportRow(p: PaymentRecord): HistoryExportRow {
  return {
    kind: p.kind, id: p.id, createdAt: iso(p.createdAt), processedAt: p.processedAt, status: p.status,
    amountMinor: p.amountMinor, currencyCode: p.currencyCode, feeMinor: p.feeMinor, feeCurrencyCode: p.feeCurrencyCode,
    accountName: p.accountName, accountNumber: p.accountNumber, emailAddress: p.emailAddress,
    paymentOperatorCode: p.paymentOperatorCode, paymentMethodCode: p.paymentMethodCode, reference: p.reference,
    batchId: p.batchId, failureReason: p.failureReason, isTest: p.isTest, intentId: p.intentId, retryOf: p.retryOf,
  };
}
