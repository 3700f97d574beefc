// payins:createLink and payins:links. A payment link is a payin the customer creates, not the desk: main asks
// the gateway for a PAYIN_CREATE token limited to a fresh payin id and to exactly the link's money (spec §4, §8),
// and hands it over once. The token crosses IPC (DESIGN.md §2 allows a token limited to one payin id, made on an
// explicit user action) and is never stored, logged or audited.
//
// How a link is journalled, with nothing new in the journal: a payin with its id, amount and currency, left
// QUEUED (stored, never sent by the desk), its payee fields a placeholder and its limits in `details.link`.
// payins:create refuses that id, so the desk itself never sends it. Until the customer creates it, the desk
// looks it up with GET when the links are listed: found, it is recorded like any payin read (ACCEPTED, and the
// status poller follows it from there); still unknown well after the token expired, it is cancelled (final,
// never paid). A new state or status would have rippled through both journals, the history, statements and
// words; a QUEUED payin with details fits all of them as they are.
import type { Money, PaymentLinkInput, PaymentLinkIssued, PaymentLinkState, PaymentLinkView } from '../../contract/api';
import { PAYMENT_LINK_HOURS } from '../../contract/api';
import { newPaymentId } from '../domain/ids';
import { MoneyError, parseMinor } from '../domain/money';
import { isFinalStatus } from '../domain/status';
import { isGatewayError } from '../gateway/errors';
import type { DeskJournal, PaymentRecord } from '../journal';
import type { Profile } from '../profiles/profile-schema';
import { iso, money, type DecimalsOf } from './convert';
import type { CurrencyCache } from './currency-cache';
import type { DeskRuntime } from './runtime';
import { DeskError } from './services';

/** The payee fields of a link's payin: the customer is unknown until they create it. */
export const LINK_PAYEE = { accountName: 'Payment link', accountNumber: '', paymentOperatorCode: '', paymentMethodCode: '', emailAddress: '' } as const;

/**
 * A link is taken as expired at the gateway only this long after its token's expiry: the desk's clock may be
 * behind the gateway's (tokens are refused beyond ±300 s skew), and a payin created in the token's last second
 * must be found first.
 */
export const EXPIRY_MARGIN_MS = 10 * 60_000;
/** A waiting link is looked up with GET at most this often, however often the list is asked for. */
const RECHECK_MS = 15_000;
/** At most this many lookups per listing: the rate budget is shared with payouts. */
const CHECKS_PER_LIST = 20;

/** What a link keeps in its payin's details: its limits, never the token. */
export interface LinkDetails {
  expiresAt: string;
  validityHours: number;
}

export function linkDetailsOf(details: Record<string, unknown> | null): LinkDetails | null {
  const link = details?.['link'];
  if (!link || typeof link !== 'object' || Array.isArray(link)) return null;
  const { expiresAt, validityHours } = link as Record<string, unknown>;
  if (typeof expiresAt !== 'string' || Number.isNaN(Date.parse(expiresAt)) || typeof validityHours !== 'number') return null;
  return { expiresAt, validityHours };
}

/**
 * The link's money and validity, checked: the currency is one the gateway offers (when its list could be read),
 * the amount is exact to that currency's decimals and above zero, the validity within 1 hour to 30 days.
 */
export function checkedLink(input: PaymentLinkInput, decimalsOf: DecimalsOf, offered: readonly string[] | null): { amountMinor: number; currencyCode: string; validityHours: number } {
  const { currencyCode } = input;
  if (offered && !offered.includes(currencyCode)) {
    const some = offered.slice(0, 8).join(', ') + (offered.length > 8 ? ', …' : '');
    const message = `the gateway does not offer ${currencyCode}; use one of ${some}`;
    throw new DeskError('CURRENCY_UNKNOWN', message, false, [{ field: 'currencyCode', code: 'CURRENCY_UNKNOWN', message }]);
  }
  let amountMinor: number;
  try {
    amountMinor = parseMinor(input.amount.trim(), decimalsOf(currencyCode));
  } catch (error) {
    if (error instanceof MoneyError) throw new DeskError(error.code, `amount: ${error.message}`, false, [{ field: 'amount', code: error.code, message: error.message }]);
    throw error;
  }
  if (amountMinor <= 0) {
    throw new DeskError('AMOUNT_NOT_POSITIVE', 'amount must be greater than zero', false, [{ field: 'amount', code: 'AMOUNT_NOT_POSITIVE', message: 'must be greater than zero' }]);
  }
  const validityHours = input.validityHours ?? PAYMENT_LINK_HOURS.default;
  if (!Number.isInteger(validityHours) || validityHours < PAYMENT_LINK_HOURS.min || validityHours > PAYMENT_LINK_HOURS.max) {
    const message = `validity must be a whole number of hours from ${PAYMENT_LINK_HOURS.min} to ${PAYMENT_LINK_HOURS.max} (30 days)`;
    throw new DeskError('VALIDITY_RANGE', message, false, [{ field: 'validityHours', code: 'VALIDITY_RANGE', message }]);
  }
  return { amountMinor, currencyCode, validityHours };
}

/** Where a link stands, from its payin as the journal has it. */
export function linkStateOf(p: Pick<PaymentRecord, 'state' | 'status' | 'isFinal'>, link: LinkDetails, now: number): PaymentLinkState {
  if (p.state === 'QUEUED') return now >= Date.parse(link.expiresAt) ? 'expired' : 'waiting';
  // Cancelled by the desk: the token ran out before the customer created the payin.
  if (p.state === 'CANCELLED') return 'expired';
  // The gateway holds other money under the id (or refused it): a person must look; it is not paid as linked.
  if (p.state === 'MISMATCH' || p.state === 'REJECTED') return 'failed';
  if (!p.isFinal) return 'paying';
  const status = p.status.toUpperCase();
  if (status === 'SUCCESS') return 'paid';
  if (status === 'EXPIRED') return 'expired';
  return 'failed';
}

/** "2026-12-01 12:00:00 UTC": the expiry as anyone reads it, whatever their time zone. */
function utcText(isoTime: string): string {
  return `${new Date(isoTime).toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

/** Everything the customer's side needs, as text to paste into a message. */
export function shareTextOf(o: { idPayin: string; money: Money; reference: string | null; expiresAt: string; gatewayUrl: string; apiMajorVersion: number; token: string }): string {
  return [
    `Payment request: ${o.money.amount} ${o.money.currencyCode}`,
    ...(o.reference ? [`Reference: ${o.reference}`] : []),
    `Valid until: ${utcText(o.expiresAt)}`,
    '',
    'For the payment page (it creates the payin with these):',
    `Gateway: ${o.gatewayUrl} (X-API-Version: ${o.apiMajorVersion})`,
    `Payin id: ${o.idPayin}`,
    `Token: ${o.token}`,
    `The token allows only POST /payins/!availablePaymentOptions, POST /payins/${o.idPayin} and GET /payins/${o.idPayin}, for exactly ${o.money.amount} ${o.money.currencyCode}.`,
  ].join('\n');
}

function viewOf(p: PaymentRecord, link: LinkDetails, decimalsOf: DecimalsOf, now: number): PaymentLinkView {
  return {
    idPayin: p.id,
    money: money(p.amountMinor, p.currencyCode, decimalsOf),
    reference: p.reference,
    createdAt: iso(p.createdAt),
    expiresAt: link.expiresAt,
    state: linkStateOf(p, link, now),
    status: p.status,
  };
}

export type PaymentLinksService = {
  createLink(profile: Profile, input: PaymentLinkInput): Promise<PaymentLinkIssued>;
  links(profile: Profile, args: { limit?: number }): Promise<PaymentLinkView[]>;
  /** A link's payin looked up once now (payins:get of a waiting link); false when it is no link. */
  checkLink(profile: Profile, idPayin: string): Promise<boolean>;
};

export function paymentLinksService(rt: DeskRuntime, currencies: CurrencyCache): PaymentLinksService {
  /** When each waiting link was last looked up, by profile and id. */
  const checkedAt = new Map<string, number>();

  /**
   * One GET of a waiting link's payin. Found: the customer created it, recorded as any payin read (and then
   * followed by the status poller), unless the gateway holds other money than the token allowed. Unknown well
   * past the token's expiry: cancelled. Anything else (offline, rate limit): nothing changes, it is asked again.
   */
  async function lookUp(profile: Profile, journal: DeskJournal, p: PaymentRecord, link: LinkDetails): Promise<void> {
    checkedAt.set(`${profile.id}:${p.id}`, Date.now());
    let read;
    try {
      read = await rt.ctx.gatewayFor(profile.id).getPayin(p.id);
    } catch (error) {
      if (!isGatewayError(error, 'not-found')) return;
      if (Date.now() < Date.parse(link.expiresAt) + EXPIRY_MARGIN_MS) return;
      // QUEUED only: another desk of a team that found the payin meanwhile has moved it on, and nothing is cancelled.
      if ((await journal.cancelUnsent('payin', [p.id])) > 0) {
        await rt.audit(profile.id, { action: 'payment-link.expired', subject: p.id, details: { expiresAt: link.expiresAt } });
      }
      return;
    }
    if ((read.amountMinor !== undefined && read.amountMinor !== p.amountMinor) || (read.currencyCode !== undefined && read.currencyCode !== p.currencyCode)) {
      const asked = read.amountMinor === undefined ? '?' : money(read.amountMinor, read.currencyCode ?? p.currencyCode, currencies.decimalsOf(profile.id)).amount;
      await journal.markLocalFinal('payin', p.id, 'MISMATCH', `the gateway holds this payin for ${asked} ${read.currencyCode ?? p.currencyCode}; the link was for ${money(p.amountMinor, p.currencyCode, currencies.decimalsOf(profile.id)).amount} ${p.currencyCode}`, read.raw);
      return;
    }
    const status = (read.status ?? 'PENDING').toUpperCase();
    const isFinal = isFinalStatus(status, profile.finalStatuses);
    const { changed } = await journal.recordObservation('payin', p.id, {
      status, source: 'poll', isFinal, raw: read.raw, feeMinor: read.feeMinor, feeCurrencyCode: read.feeCurrencyCode,
      failureReason: read.failureReason, processedAt: read.processedAt, isTest: read.isTest,
      nextPollAt: isFinal ? null : Date.now() + profile.pollIntervalSecs * 1000,
    });
    if (changed) {
      rt.events.emit('paymentStatusChanged', { kind: 'payin', id: p.id, status, previousStatus: p.status, final: isFinal, source: 'poll', observedAt: iso(Date.now()), batchId: null });
    }
  }

  /** The newest payins that are links, up to `limit`. */
  async function linkRecords(journal: DeskJournal, limit: number): Promise<{ p: PaymentRecord; link: LinkDetails }[]> {
    const found: { p: PaymentRecord; link: LinkDetails }[] = [];
    // Links carry their placeholder name, so the history's text search narrows the payins to read.
    for (let page = 0; page < 10 && found.length < limit; page++) {
      const { rows } = await journal.history({ kind: 'payin', text: LINK_PAYEE.accountName, sortBy: 'createdAt', sortDir: 'desc', page, pageSize: 200 });
      for (const p of rows) {
        const link = linkDetailsOf(p.details);
        if (link && found.length < limit) found.push({ p, link });
      }
      if (rows.length < 200) break;
    }
    return found;
  }

  return {
    async createLink(profile, input) {
      const journal = await rt.journalFor(profile.id);
      const decimalsOf = await currencies.freshDecimalsOf(profile.id);
      const offered = await currencies.currencies(profile.id).then((list) => list.map((c) => c.code), () => null);
      const { amountMinor, currencyCode, validityHours } = checkedLink(input, decimalsOf, offered);
      const reference = input.reference?.trim() || null;
      const idPayin = newPaymentId();
      // The token first: if the gateway refuses it, nothing is stored. A token issued for a link the journal
      // then failed to store is dropped unseen; nobody holds it.
      const issued = await rt.ctx.gatewayFor(profile.id).createPayinToken({
        action: 'PAYIN_CREATE', idPayin, validitySecs: validityHours * 3600, money: { amountMinor, currencyCode },
      });
      const link: LinkDetails = { expiresAt: issued.expiresAt, validityHours };
      const p = await journal.insertPayment('payin', {
        id: idPayin, amountMinor, currencyCode, ...LINK_PAYEE, ...(reference ? { reference } : {}), details: { link: { ...link } },
      });
      const m = money(amountMinor, currencyCode, decimalsOf);
      await rt.audit(profile.id, { action: 'payment-link.created', subject: idPayin, details: { amount: m.amount, currencyCode, expiresAt: issued.expiresAt, validityHours } });
      const view = viewOf(p, link, decimalsOf, Date.now());
      const target = { gatewayUrl: profile.baseUrl, apiMajorVersion: profile.apiMajorVersion };
      return { ...view, token: issued.token, ...target, shareText: shareTextOf({ ...view, ...target, token: issued.token }) };
    },

    async links(profile, { limit }) {
      const journal = await rt.journalFor(profile.id);
      let records = await linkRecords(journal, limit ?? 50);
      const now = Date.now();
      const due = records.filter(({ p }) => p.state === 'QUEUED' && now - (checkedAt.get(`${profile.id}:${p.id}`) ?? 0) >= RECHECK_MS).slice(0, CHECKS_PER_LIST);
      for (const { p, link } of due) await lookUp(profile, journal, p, link);
      if (due.length > 0) {
        const fresh = new Map<string, PaymentRecord>();
        for (const { p } of due) {
          const after = await journal.getPayment('payin', p.id);
          if (after) fresh.set(p.id, after);
        }
        records = records.map((r) => ({ ...r, p: fresh.get(r.p.id) ?? r.p }));
      }
      const decimalsOf = currencies.decimalsOf(profile.id);
      return records.map(({ p, link }) => viewOf(p, link, decimalsOf, Date.now()));
    },

    async checkLink(profile, idPayin) {
      const journal = await rt.journalFor(profile.id);
      const p = await journal.getPayment('payin', idPayin);
      const link = p ? linkDetailsOf(p.details) : null;
      if (!p || !link) return false;
      if (p.state === 'QUEUED') await lookUp(profile, journal, p, link);
      return true;
    },
  };
}
