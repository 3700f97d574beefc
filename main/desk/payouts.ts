// payouts:* — validate, create (journalled, sent once by the engine), read, code lists.
import type { FieldIssue, PayoutInput, PayoutPreview } from '../../preload/api';
import { DEFAULT_PAYMENT_METHOD, payoutFieldsOf, validatePayout, type PayoutDraft } from '../domain/payout';
import { newPaymentId } from '../domain/ids';
import { MoneyError, parseMinor } from '../domain/money';
import { payoutRequestBody } from '../gateway/payment-body';
import type { Profile } from '../profiles/profile-schema';
import type { ProfileAreaService } from './profile-binding';
import type { DeskRuntime } from './runtime';
import { announcedCallbackUrl } from './profile-engine';
import { DeskError } from './services';
import { detailOf, money, type DecimalsOf } from './convert';
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
  const callbackUrl = input.callbackUrl?.trim() || announcedCallbackUrl(profile) || undefined;
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
  const { amountMinor, currencyCode, callbackUrl, ...payee } = payoutFieldsOf(draft);
  // PayoutPreview is written by hand in preload/api.ts (which imports nothing from main); this fails to
  // compile if it loses one of PayoutFields' payee fields or types one differently.
  const shown: Pick<PayoutPreview, keyof typeof payee> = payee;
  return {
    idPayout: draft.idPayout,
    money: money(amountMinor, currencyCode, decimalsOf),
    ...shown,
    callbackUrl: callbackUrl ?? null,
    // The one builder the gateway client sends with: what is reviewed is byte for byte what is signed and sent.
    requestBody: payoutRequestBody(draft, decimalsOf(currencyCode)),
    fee: null,
  };
}

export function payoutsService(rt: DeskRuntime, currencies: CurrencyCache): ProfileAreaService<'payouts'> {
  return {
    async validate(profile, input) {
      const decimalsOf = await currencies.freshDecimalsOf(profile.id);
      const { draft, issues } = buildDraft(input, profile, decimalsOf);
      if (draft && rt.journalFor(profile.id).getPayment('payout', draft.idPayout)) {
        issues.push({ field: 'idPayout', code: 'ID_EXISTS', message: `payout ${draft.idPayout} is already in the journal` });
      }
      return issues.length > 0 ? { valid: false, issues, preview: null } : { valid: true, issues: [], preview: draft ? preview(draft, decimalsOf) : null };
    },
    async create(profile, input) {
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
    async get(profile, { idPayout }) {
      return detailOf(rt.journalFor(profile.id), 'payout', idPayout, currencies.decimalsOf(profile.id));
    },
    async release(profile, { idPayout }) {
      const engine = await rt.engineFor(profile.id);
      await engine.releasePayout(idPayout, { waitMs: 10_000 });
      return detailOf(engine.journal, 'payout', idPayout, currencies.decimalsOf(profile.id));
    },
    async discard(profile, { idPayout, reason }) {
      const engine = await rt.engineFor(profile.id);
      engine.discardPayout(idPayout, reason ? { reason: `discarded while held: ${reason}` } : {});
      return detailOf(engine.journal, 'payout', idPayout, currencies.decimalsOf(profile.id));
    },
    async currencies(profile) {
      return (await currencies.currencies(profile.id)).map((c) => ({ code: c.code, name: c.name ?? c.code, decimals: c.decimals }));
    },
    async operators(profile, { currencyCode }) {
      const operators = await rt.ctx.gatewayFor(profile.id).paymentOperators();
      return operators
        .filter((o) => !currencyCode || !o.currencyCodes || o.currencyCodes.includes(currencyCode))
        .map((o) => ({ code: o.code, name: o.name ?? o.code, paymentMethodCode: o.paymentMethodCode ?? DEFAULT_PAYMENT_METHOD, currencyCodes: o.currencyCodes ?? [] }));
    },
  };
}
