// payouts:* — validate, create (journalled, sent once by the engine), read, code lists.
import type { FieldIssue, PayoutBalance, PayoutInput, PayoutPreview } from '../../contract/api';
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
import { freshFunding, shortfallText, type FreshnessOptions } from './funding';
import { personActor, preparedByFor, senderFor } from './dual-control';
import { executionFor } from './schedules';
import { possibleDuplicateOf } from './possible-duplicate';
import { emailPayoutRemittance, payoutRemittance, payoutRemittanceEmail } from './remittance';

/** Live validation (every pause in typing): a balance read at most every 15 s, waited for up to 2 s. */
const LIVE_CHECK: FreshnessOptions = { maxAgeMs: 15_000, waitMs: 2_000 };
/** Before sending: read now, waited for up to 5 s (offline, the stored balance decides). */
const BEFORE_SEND: FreshnessOptions = { waitMs: 5_000 };

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
    // The ceiling counts in minor units of the payout's own currency: say it in that currency.
    const message = p.code === 'AMOUNT_OVER_LIMIT' && profile.maxAmountMinor
      ? `amount is over this profile's per-payout maximum of ${money(profile.maxAmountMinor, draft.currencyCode, decimalsOf).amount} ${draft.currencyCode}`
      : p.message;
    issues.push({ field: p.field === 'amountMinor' ? 'amount' : p.field, code: p.code, message });
  }
  return { draft: issues.length === 0 ? draft : null, issues };
}

/**
 * The funding rule of batches (main/desk/funding.ts) for one payout: refused when the last known available
 * balance of its currency does not cover it. The gateway's balance is read first when it can be.
 */
async function fundingIssue(rt: DeskRuntime, profile: Profile, draft: PayoutDraft, decimalsOf: DecimalsOf, freshness: FreshnessOptions): Promise<FieldIssue | null> {
  const totals = [{ currencyCode: draft.currencyCode, amountMinor: draft.amountMinor, count: 1 }];
  const short = shortfallText(await freshFunding(rt, profile.id, totals, decimalsOf, freshness));
  if (!short) return null;
  return { field: 'amount', code: 'INSUFFICIENT_BALANCE', message: `not enough funds: ${short}; top up the balance or send less` };
}

/**
 * What the form shows beside the amount: the currency's last stored balance (read from the gateway at most every
 * 15 s while a valid payout is typed, by fundingIssue) and what this payout would leave, in minor units here.
 */
async function payoutBalance(rt: DeskRuntime, profileId: string, currencyCode: string, amountMinor: number | null, decimalsOf: DecimalsOf): Promise<PayoutBalance | null> {
  const snapshot = (await (await rt.journalFor(profileId)).latestBalances()).find((b) => b.currencyCode === currencyCode);
  if (!snapshot) return null;
  return {
    available: money(snapshot.availableMinor, currencyCode, decimalsOf),
    observedAt: new Date(snapshot.observedAt).toISOString(),
    afterThis: amountMinor === null ? null : money(snapshot.availableMinor - amountMinor, currencyCode, decimalsOf),
  };
}

function preview(draft: PayoutDraft, decimalsOf: DecimalsOf): PayoutPreview {
  const { amountMinor, currencyCode, callbackUrl, ...payee } = payoutFieldsOf(draft);
  // PayoutPreview is written by hand in contract/api.ts (which imports nothing from main); this fails to
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
      if (draft && (await (await rt.journalFor(profile.id)).getPayment('payout', draft.idPayout))) {
        issues.push({ field: 'idPayout', code: 'ID_EXISTS', message: `payout ${draft.idPayout} is already in the journal` });
      }
      // A dated payout: its time checked as create checks it, and not held to today's balance (the forecast shows it).
      let dated = false;
      if (input.executeOn) {
        try {
          executionFor(profile, input.executeOn);
          dated = true;
        } catch (error) {
          if (!(error instanceof DeskError)) throw error;
          issues.push(...error.issues);
        }
      }
      // Validated as the person types: the balance is read at most every 15 s, and never waited for long.
      const funding = draft && issues.length === 0 && !dated ? await fundingIssue(rt, profile, draft, decimalsOf, LIVE_CHECK) : null;
      if (funding) issues.push(funding);
      const balance = await payoutBalance(rt, profile.id, input.currencyCode, draft?.amountMinor ?? null, decimalsOf);
      if (issues.length > 0) return { valid: false, issues, preview: null, balance, possibleDuplicate: null };
      const possibleDuplicate = draft ? await possibleDuplicateOf(await rt.journalFor(profile.id), draft, profile.repeatWindowDays, decimalsOf) : null;
      return { valid: true, issues: [], preview: draft ? preview(draft, decimalsOf) : null, balance, possibleDuplicate };
    },
    async create(profile, input) {
      const journal = await rt.journalFor(profile.id);
      const decimalsOf = await currencies.freshDecimalsOf(profile.id);
      // Same id again (double click, retry after a lost answer): the payout already exists; never send twice.
      if (await journal.getPayment('payout', input.idPayout)) return detailOf(journal, 'payout', input.idPayout, decimalsOf);
      const { draft, issues } = buildDraft(input, profile, decimalsOf);
      if (!draft) throw new DeskError('VALIDATION', 'The payout is not valid; nothing was sent', false, issues);
      // Scheduled: released at its time by a sender desk (the calendar); its funding is the forecast's to show.
      const executeOn = input.executeOn ? executionFor(profile, input.executeOn) : undefined;
      // Checked again here, not only in validate: this is the one place every sender (UI, CLI) passes.
      const funding = executeOn ? null : await fundingIssue(rt, profile, draft, decimalsOf, BEFORE_SEND);
      if (funding) throw new DeskError('INSUFFICIENT_BALANCE', `The payout was not sent: ${funding.message}`, false, [funding]);
      // Dual control: the person preparing it is recorded (and, once the desk has people, required).
      const preparedBy = await preparedByFor(rt, profile.id);
      // Like a payout of the last days: refused here, where every sender passes, until the person confirms.
      const duplicate = await possibleDuplicateOf(journal, draft, profile.repeatWindowDays, decimalsOf);
      if (duplicate && input.confirmPossibleDuplicate !== true) {
        throw new DeskError('POSSIBLE_DUPLICATE', `The payout was not sent: ${duplicate.message}`, false, [{ field: 'amount', code: 'POSSIBLE_DUPLICATE', message: duplicate.message }]);
      }
      if (duplicate) {
        await rt.audit(profile.id, {
          actor: preparedBy ? personActor({ id: preparedBy }) : 'user',
          action: 'payout.possible-duplicate-confirmed',
          subject: draft.idPayout,
          details: { like: duplicate.idPayout, likeCreatedAt: duplicate.createdAt, windowDays: profile.repeatWindowDays },
        });
      }
      const engine = await rt.engineFor(profile.id);
      await engine.submitPayout(draft, { waitMs: 10_000, ...(preparedBy ? { preparedBy } : {}), ...(executeOn ? { executeOn } : {}), ...(duplicate ? { possibleDuplicate: true } : {}) });
      if (executeOn) rt.events.emit('schedulesChanged', { profileId: profile.id, subject: { kind: 'payout', id: draft.idPayout }, change: 'scheduled' });
      return detailOf(journal, 'payout', draft.idPayout, decimalsOf);
    },
    async get(profile, { idPayout }) {
      return detailOf(await rt.journalFor(profile.id), 'payout', idPayout, currencies.decimalsOf(profile.id));
    },
    async remittance(profile, { idPayout }) {
      return payoutRemittance(rt, currencies, profile, idPayout);
    },
    async emailRemittance(profile, { idPayout, force }) {
      return emailPayoutRemittance(rt, currencies, profile, idPayout, force === true);
    },
    async remittanceEmail(profile, { idPayout }) {
      return payoutRemittanceEmail(rt, profile, idPayout);
    },
    async release(profile, { idPayout }) {
      // Dual control: releasing sends, so it is the sender's act (recorded as the actor).
      const sender = await senderFor(rt, profile.id);
      const engine = await rt.engineFor(profile.id);
      await engine.releasePayout(idPayout, { waitMs: 10_000, ...(sender ? { actor: personActor({ id: sender }) } : {}) });
      return detailOf(engine.journal, 'payout', idPayout, currencies.decimalsOf(profile.id));
    },
    async discard(profile, { idPayout, reason }) {
      const engine = await rt.engineFor(profile.id);
      await engine.discardPayout(idPayout, reason ? { reason: `discarded while held: ${reason}` } : {});
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
