// payouts:*, history:* and balances:*. Reads come from the journal (they work offline); only
// creates, code lists and balance refreshes need the gateway.
import type { BalanceView, FieldIssue, HistoryFilters, HistoryQuery as ContractQuery, PayoutInput, PayoutPreview } from '../../../preload/api';
import { exportHistoryCsvAsync, type HistoryExportRow } from '../../csv/export';
import { TimeSlicer, yieldToEventLoop } from '../../csv/time-slice';
import { DEFAULT_PAYMENT_METHOD, validatePayout, type PayoutDraft } from '../../domain/payout';
import { newPaymentId } from '../../domain/ids';
import { MoneyError, parseMinor } from '../../domain/money';
import { amountLiteral, minifiedJson } from '../../gateway/json-body';
import type { HistoryFilter, HistoryQuery, HistorySortKey, Journal, PaymentRecord } from '../../journal';
import type { Profile } from '../../profiles/profile-schema';
import type { DeskRuntime } from '../runtime';
import { DeskError, type AreaService } from '../services';
import { historyRow, iso, money, paymentDetail, type DecimalsOf } from './convert';
import type { CurrencyCache } from './currency-cache';

interface DraftOutcome {
  draft: PayoutDraft | null;
  issues: FieldIssue[];
}

function buildDraft(input: PayoutInput, profile: Profile, decimalsOf: DecimalsOf): DraftOutcome {
  const issues: FieldIssue[] = [];
  let amountMinor = 0;
  try {
    amountMinor = parseMinor(input.amount, decimalsOf(input.currencyCode));
  } catch (error) {
    if (!(error instanceof MoneyError)) throw error;
    issues.push({ field: 'amount', code: error.code, message: error.message });
  }
  const callbackUrl = input.callbackUrl?.trim() || profile.callbackUrl || undefined;
  const draft: PayoutDraft = {
    idPayout: input.idPayout ?? newPaymentId(),
    amountMinor,
    currencyCode: input.currencyCode,
    accountName: input.accountName.trim(),
    accountNumber: input.accountNumber.trim(),
    paymentOperatorCode: input.paymentOperatorCode.trim(),
    paymentMethodCode: input.paymentMethodCode?.trim() || DEFAULT_PAYMENT_METHOD,
    emailAddress: input.emailAddress.trim(),
    ...(callbackUrl ? { callbackUrl } : {}),
    ...(input.reference ? { reference: input.reference } : {}),
  };
  for (const p of validatePayout(draft, profile.maxAmountMinor ?? undefined)) {
    if (p.field === 'amountMinor' && issues.length > 0) continue;
    issues.push({ field: p.field === 'amountMinor' ? 'amount' : p.field, code: p.code, message: p.message });
  }
  return { draft: issues.length === 0 ? draft : null, issues };
}

function preview(draft: PayoutDraft, decimalsOf: DecimalsOf): PayoutPreview {
  // The same body shape the gateway client signs (main/gateway/client.ts paymentBody).
  const requestBody = minifiedJson({
    paymentRequested: { money: { amount: amountLiteral(draft.amountMinor, decimalsOf(draft.currencyCode)), currencyCode: draft.currencyCode } },
    paymentMethod: {
      paymentMethodCode: draft.paymentMethodCode,
      paymentOperatorCode: draft.paymentOperatorCode,
      account: { accountName: draft.accountName, accountNumber: draft.accountNumber },
      emailAddress: draft.emailAddress,
    },
    callbackUrl: draft.callbackUrl,
  });
  return {
    idPayout: draft.idPayout,
    money: money(draft.amountMinor, draft.currencyCode, decimalsOf),
    accountName: draft.accountName,
    accountNumber: draft.accountNumber,
    paymentOperatorCode: draft.paymentOperatorCode,
    paymentMethodCode: draft.paymentMethodCode,
    emailAddress: draft.emailAddress,
    callbackUrl: draft.callbackUrl ?? null,
    requestBody,
    fee: null,
  };
}

function detailOf(journal: Journal, kind: 'payout' | 'payin', id: string, decimalsOf: DecimalsOf) {
  const record = journal.getPayment(kind, id);
  if (!record) throw new DeskError('NOT_FOUND', `No ${kind} with id ${id} in this profile's journal`);
  return paymentDetail(record, journal.timeline(kind, id), decimalsOf);
}

export function payoutsService(rt: DeskRuntime, currencies: CurrencyCache): AreaService<'payouts'> {
  return {
    async validate(input) {
      const profile = rt.activeProfile();
      const decimalsOf = await currencies.freshDecimalsOf(profile.id);
      const { draft, issues } = buildDraft(input, profile, decimalsOf);
      if (draft && rt.journalFor(profile.id).getPayment('payout', draft.idPayout)) {
        issues.push({ field: 'idPayout', code: 'ID_EXISTS', message: `payout ${draft.idPayout} is already in the journal` });
      }
      return issues.length > 0 ? { valid: false, issues, preview: null } : { valid: true, issues: [], preview: draft ? preview(draft, decimalsOf) : null };
    },
    async create(input) {
      const profile = rt.activeProfile();
      const journal = rt.journalFor(profile.id);
      const decimalsOf = await currencies.freshDecimalsOf(profile.id);
      // Same id again (double click, retry after a lost answer): the payout already exists; never send twice.
      if (journal.getPayment('payout', input.idPayout)) return detailOf(journal, 'payout', input.idPayout, decimalsOf);
      const { draft, issues } = buildDraft(input, profile, decimalsOf);
      if (!draft) throw new DeskError('VALIDATION', 'The payout is not valid; nothing was sent', false, issues);
      const engine = await rt.engineFor(profile.id);
      await engine.submitPayout(draft, { waitMs: 10_000 });
      return detailOf(journal, 'payout', draft.idPayout, decimalsOf);
    },
    async get({ idPayout }) {
      const profile = rt.activeProfile();
      return detailOf(rt.journalFor(profile.id), 'payout', idPayout, currencies.decimalsOf(profile.id));
    },
    async currencies() {
      const profile = rt.activeProfile();
      return (await currencies.currencies(profile.id)).map((c) => ({ code: c.code, name: c.name ?? c.code, decimals: c.decimals }));
    },
    async operators({ currencyCode }) {
      const profile = rt.activeProfile();
      const operators = await rt.ctx.gatewayFor(profile.id).paymentOperators();
      return operators
        .filter((o) => !currencyCode || !o.currencyCodes || o.currencyCodes.includes(currencyCode))
        .map((o) => ({ code: o.code, name: o.name ?? o.code, paymentMethodCode: o.paymentMethodCode ?? DEFAULT_PAYMENT_METHOD, currencyCodes: o.currencyCodes ?? [] }));
    },
  };
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

export function historyService(rt: DeskRuntime, currencies: CurrencyCache): AreaService<'history'> {
  return {
    async query({ filters, sort, offset = 0, limit = 100 }) {
      const profile = rt.activeProfile();
      const journal = rt.journalFor(profile.id);
      const decimalsOf = currencies.decimalsOf(profile.id);
      const base: HistoryQuery = { ...journalFilter(filters), sortBy: SORT_KEYS[sort?.field ?? 'createdAt'], sortDir: sort?.direction ?? 'desc', pageSize: limit };
      // The journal pages by page number; an offset between pages reads two pages and cuts.
      const first = Math.floor(offset / limit);
      const page = journal.history({ ...base, page: first });
      let rows = page.rows;
      if (offset % limit !== 0) rows = [...rows, ...journal.history({ ...base, page: first + 1 }).rows];
      const start = offset - first * limit;
      return { items: rows.slice(start, start + limit).map((r) => historyRow(r, decimalsOf)), total: page.total, offset, limit };
    },
    async timeline({ kind, id }) {
      const profile = rt.activeProfile();
      return detailOf(rt.journalFor(profile.id), kind, id, currencies.decimalsOf(profile.id));
    },
    async export({ filters }) {
      const profile = rt.activeProfile();
      // Read and written in time slices: a 100,000-row export must not stall the main process.
      const rows: HistoryExportRow[] = [];
      const slicer = new TimeSlicer(yieldToEventLoop);
      for (const p of rt.journalFor(profile.id).iterateHistory(journalFilter(filters))) {
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
    batchId: p.batchId, failureReason: p.failureReason, isTest: p.isTest,
  };
}

export function balancesService(rt: DeskRuntime, currencies: CurrencyCache): AreaService<'balances'> {
  const views = (profileId: string, decimalsOf: DecimalsOf): BalanceView[] => {
    const journal = rt.journalFor(profileId);
    const pending = new Map(journal.pendingPayoutTotals().map((t) => [t.currencyCode, t.amountMinor]));
    const latest = journal.latestBalances();
    const codes = new Set([...latest.map((b) => b.currencyCode), ...pending.keys()]);
    return [...codes].sort().map((code) => {
      const snap = latest.find((b) => b.currencyCode === code);
      return {
        currencyCode: code,
        available: money(snap?.availableMinor ?? 0, code, decimalsOf),
        reserved: money(snap?.reservedMinor ?? 0, code, decimalsOf),
        pendingOutgoing: money(pending.get(code) ?? 0, code, decimalsOf),
        observedAt: snap ? iso(snap.observedAt) : null,
      };
    });
  };
  return {
    async get() {
      const profile = rt.activeProfile();
      return views(profile.id, currencies.decimalsOf(profile.id));
    },
    async refresh() {
      const profile = rt.activeProfile();
      const codes = (await currencies.currencies(profile.id)).map((c) => c.code);
      const engine = await rt.engineFor(profile.id);
      await engine.refreshBalances(codes);
      return views(profile.id, currencies.decimalsOf(profile.id));
    },
    async series({ currencyCode, from, to }) {
      const profile = rt.activeProfile();
      const decimalsOf = currencies.decimalsOf(profile.id);
      const points = rt.journalFor(profile.id).balanceSeries(currencyCode, from ? Date.parse(from) : undefined, to ? Date.parse(to) : undefined);
      return points.map((p) => ({ at: iso(p.observedAt), available: money(p.availableMinor, currencyCode, decimalsOf), reserved: money(p.reservedMinor, currencyCode, decimalsOf) }));
    },
    async pending() {
      const profile = rt.activeProfile();
      const decimalsOf = currencies.decimalsOf(profile.id);
      return rt.journalFor(profile.id).pendingPayoutTotals().map((t) => money(t.amountMinor, t.currencyCode, decimalsOf));
    },
  };
}
