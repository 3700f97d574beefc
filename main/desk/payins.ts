// payins:*. A payin is journalled (id fixed) before it is sent, like a payout; its virtual account,
// reference and expiry are read from the gateway's own response stored in the status history, so
// the payin screen works offline too. Two tokens cross IPC, each limited to one payin id, created only
// on an explicit call, never stored or logged: the share token (PAYIN_INFO) and a payment link's token
// (PAYIN_CREATE for exactly the link's money; main/desk/payment-links.ts).
import type { Money, PayinView } from '../../contract/api';
import { minorFromGatewayNumber } from '../domain/money';
import { newPaymentId } from '../domain/ids';
import { isFinalStatus } from '../domain/status';
import { isGatewayError } from '../gateway/errors';
import type { DeskJournal } from '../journal';
import type { Profile } from '../profiles/profile-schema';
import type { ProfileAreaService } from './profile-binding';
import type { DeskRuntime } from './runtime';
import { announcedCallbackUrl } from './profile-engine';
import { DeskError } from './services';
import { iso, minorOf, money, statusEventView, toJson, type DecimalsOf } from './convert';
import type { CurrencyCache } from './currency-cache';
import type { DemoController } from './demo-controller';
import { linkDetailsOf, paymentLinksService } from './payment-links';

const DEFAULT_PAYIN_METHOD = 'VAPAY';

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj | null => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : null);
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

function toPayMoney(m: Obj | null, decimalsOf: DecimalsOf): Money | null {
  const amount = m?.['amount'];
  const code = str(m?.['currencyCode']);
  if (typeof amount !== 'number' || !code) return null;
  try {
    return money(minorFromGatewayNumber(amount, decimalsOf(code)), code, decimalsOf);
  } catch {
    return null;
  }
}

/** Reads the fields the payin screen needs from a raw create/status response, whatever else it holds. */
function fromRaw(raw: unknown, decimalsOf: DecimalsOf) {
  const response = obj(obj(raw)?.['paymentMethodResponse']);
  const account = obj(response?.['account']);
  const toPay = obj(response?.['money']);
  return {
    account: account
      ? { accountName: str(account['accountName']) ?? '', accountNumber: str(account['accountNumber']) ?? '', bankCode: str(account['bankCode']) ?? '', bankName: str(account['bankName']) ?? '' }
      : null,
    reference: str(response?.['reference']),
    expireAt: str(response?.['expireAt']),
    returnUrl: str(response?.['returnUrl']),
    toPay: toPayMoney(toPay, decimalsOf),
  };
}

async function payinView(journal: DeskJournal, idPayin: string, decimalsOf: DecimalsOf): Promise<PayinView> {
  const p = await journal.getPayment('payin', idPayin);
  if (!p) throw new DeskError('NOT_FOUND', `No payin ${idPayin} in this profile's journal`);
  const events = await journal.timeline('payin', idPayin);
  // Newest gateway response that carries the virtual account wins.
  const raws = events.filter((e) => e.source !== 'local').map((e) => e.raw).reverse();
  const parsed = raws.map((r) => fromRaw(r, decimalsOf)).find((r) => r.account) ?? fromRaw(raws[0], decimalsOf);
  const details = p.details ?? {};
  return {
    idPayin: p.id,
    status: p.status,
    final: p.isFinal,
    requested: money(p.amountMinor, p.currencyCode, decimalsOf),
    toPay: parsed.toPay,
    paymentMethodCode: p.paymentMethodCode,
    account: parsed.account,
    reference: parsed.reference,
    expireAt: parsed.expireAt,
    returnUrl: parsed.returnUrl ?? str(details['returnUrl']),
    isTest: p.isTest,
    createdAt: iso(p.createdAt),
    events: events.map(statusEventView),
    raw: toJson(raws[0] ?? null),
  };
}

async function observe(rt: DeskRuntime, profile: Profile, idPayin: string): Promise<void> {
  const status = await rt.ctx.gatewayFor(profile.id).getPayin(idPayin);
  const value = status.status ?? 'PENDING';
  const isFinal = isFinalStatus(value, profile.finalStatuses);
  await (await rt.journalFor(profile.id)).recordObservation('payin', idPayin, {
    status: value, source: 'poll', isFinal, raw: status.raw, feeMinor: status.feeMinor, feeCurrencyCode: status.feeCurrencyCode,
    failureReason: status.failureReason, processedAt: status.processedAt, isTest: status.isTest,
    nextPollAt: isFinal ? null : Date.now() + profile.pollIntervalSecs * 1000,
  });
}

export function payinsService(rt: DeskRuntime, currencies: CurrencyCache, demo: DemoController | null): ProfileAreaService<'payins'> {
  const links = paymentLinksService(rt, currencies);
  const send = async (profile: Profile, journal: DeskJournal, idPayin: string): Promise<void> => {
    const p = await journal.getPayment('payin', idPayin);
    if (!p || (p.state !== 'QUEUED' && p.state !== 'SENDING')) return;
    // The same claim the engine takes for a payout: SENDING is durable before the request leaves, and in a
    // team no other desk sends this payin meanwhile.
    const claim = await journal.claimSend('payin', idPayin);
    if (!claim) return;
    const returnUrl = str(p.details?.['returnUrl']);
    try {
      if (!claim.confirm()) return;
      const created = await rt.ctx.gatewayFor(profile.id).createPayin(idPayin, {
        amountMinor: p.amountMinor, currencyCode: p.currencyCode, accountName: p.accountName, accountNumber: p.accountNumber,
        paymentOperatorCode: p.paymentOperatorCode, paymentMethodCode: p.paymentMethodCode, emailAddress: p.emailAddress,
        ...(p.callbackUrl ? { callbackUrl: p.callbackUrl } : {}), ...(returnUrl ? { returnUrl } : {}),
      });
      await journal.recordObservation('payin', idPayin, { status: 'PENDING', source: 'create', isFinal: false, raw: created.raw, nextPollAt: Date.now() + profile.pollIntervalSecs * 1000 });
    } catch (error) {
      if (isGatewayError(error, 'conflict')) return observe(rt, profile, idPayin);
      // Refused outright (validation, auth, version): nothing was stored. A garbled 2xx may have been stored,
      // so like a 5xx it stays SENDING and is read back with GET.
      if (isGatewayError(error) && !error.retryable && error.kind !== 'bad-response') await journal.markLocalFinal('payin', idPayin, 'REJECTED', error.message);
      else await journal.markUncertain('payin', idPayin, error instanceof Error ? error.message : String(error));
      throw error;
    } finally {
      await claim.release();
    }
  };

  return {
    createLink: (profile, input) => links.createLink(profile, input),
    links: (profile, args) => links.links(profile, args),
    async options(profile, { money: m }) {
      const decimalsOf = await currencies.freshDecimalsOf(profile.id);
      const options = await rt.ctx.gatewayFor(profile.id).paymentOptions({ amountMinor: minorOf(m.amount, m.currencyCode, decimalsOf), currencyCode: m.currencyCode });
      return options.map((o) => ({ paymentMethodCode: o.paymentMethodCode, operators: o.operators.map((op) => ({ code: op.code, name: op.name ?? op.code })) }));
    },
    async create(profile, input) {
      const journal = await rt.journalFor(profile.id);
      const decimalsOf = await currencies.freshDecimalsOf(profile.id);
      const idPayin = input.idPayin ?? newPaymentId();
      const existing = await journal.getPayment('payin', idPayin);
      // A payment link's payin is the customer's to create, with the token they were given: never sent from here.
      if (existing && linkDetailsOf(existing.details)) throw new DeskError('PAYMENT_LINK_ID', `payin ${idPayin} is a payment link: the customer creates it with the link's token`);
      if (!existing) {
        const amountMinor = minorOf(input.amount, input.currencyCode, decimalsOf);
        if (amountMinor <= 0) throw new DeskError('AMOUNT_NOT_POSITIVE', 'amount must be greater than zero');
        const callbackUrl = input.callbackUrl || announcedCallbackUrl(profile) || undefined;
        await journal.insertPayment('payin', {
          id: idPayin, amountMinor, currencyCode: input.currencyCode, accountName: input.accountName, accountNumber: input.accountNumber,
          paymentOperatorCode: input.paymentOperatorCode, paymentMethodCode: input.paymentMethodCode ?? DEFAULT_PAYIN_METHOD,
          emailAddress: input.emailAddress, callbackUrl, details: input.returnUrl ? { returnUrl: input.returnUrl } : undefined,
        });
      }
      // Same id again: sent only if the first attempt never reached the gateway.
      await send(profile, journal, idPayin);
      return payinView(journal, idPayin, decimalsOf);
    },
    async get(profile, { idPayin }) {
      const journal = await rt.journalFor(profile.id);
      const record = await journal.getPayment('payin', idPayin);
      if (!record) throw new DeskError('NOT_FOUND', `No payin ${idPayin} in this profile's journal`);
      // A link the customer may have used meanwhile: looked up once (offline, it stays as the journal has it).
      if (record.state === 'QUEUED' && linkDetailsOf(record.details)) await links.checkLink(profile, idPayin).catch(() => undefined);
      else if (record.state === 'ACCEPTED' && !record.isFinal) {
        // Offline is fine: the journal's last known status is shown.
        await observe(rt, profile, idPayin).catch(() => undefined);
      }
      return payinView(journal, idPayin, currencies.decimalsOf(profile.id));
    },
    async accountData(profile, { idPayin }) {
      const data = await rt.ctx.gatewayFor(profile.id).getPayinAccountData(idPayin);
      return toJson({ request: data.request, process: data.process });
    },
    async markPaidDemo(profile, { idPayin }) {
      if (!profile.isDemo || !demo) throw new DeskError('DEMO_ONLY', 'Only a Demo profile can mark a payin paid');
      demo.markPayinPaid(profile.id, idPayin);
      await observe(rt, profile, idPayin);
      return payinView(await rt.journalFor(profile.id), idPayin, currencies.decimalsOf(profile.id));
    },
    async shareToken(profile, { idPayin, validitySecs }) {
      if (!(await (await rt.journalFor(profile.id)).getPayment('payin', idPayin))) throw new DeskError('NOT_FOUND', `No payin ${idPayin} in this profile's journal`);
      const issued = await rt.ctx.gatewayFor(profile.id).createPayinToken({ action: 'PAYIN_INFO', idPayin, validitySecs });
      // Who handed out a token for this payin and for how long; never the token itself.
      await rt.audit(profile.id, { action: 'payin.token-shared', subject: idPayin, details: { validitySecs, expiresAt: issued.expiresAt } });
      return { idPayin, token: issued.token, expiresAt: issued.expiresAt };
    },
  };
}
