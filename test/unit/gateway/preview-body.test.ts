// What a person reviews is what is sent: the review screen's requestBody (payouts:validate) is byte for
// byte the body the gateway client sends with POST /payouts/{id} when that payout is created, because
// both come from the one builder (main/gateway/payment-body.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PayoutInput } from '../../../contract/api';
import { createCurrencyCache } from '../../../main/desk/currency-cache';
import { createDeskEvents } from '../../../main/desk/events';
import { payoutsService } from '../../../main/desk/payouts';
import { createDeskRuntime, type DeskRuntime } from '../../../main/desk/runtime';
import { payoutFieldsOf, type PayoutDraft } from '../../../main/domain/payout';
import { payoutRequestBody } from '../../../main/gateway/payment-body';
import { silentLogger } from '../../../main/log';
import { FakeGateway, clientFixture, tokenRoute, type ClientFixture } from './fake-gateway';

const gw = new FakeGateway()
  .on('POST /auth-tokens', tokenRoute())
  // KWD has three decimals here and JPY none: the preview must use the gateway's decimals as the client does.
  .on('GET /currencies', () => ({ body: { data: [{ code: 'EUR', decimals: 2 }, { code: 'KWD', decimals: 3 }, { code: 'JPY', decimals: 0 }] } }))
  .on('POST /payouts/:id', (req) => ({ status: 201, body: { paymentMethodResponse: { idPayout: req.url.split('/').pop(), paymentMethodCode: 'BANK_TRANSFER' } } }))
  .on('GET /payouts/:id', (req) => ({ body: { process: { status: 'PENDING' }, paymentMethodResponse: { idPayout: req.url.split('/').pop() } } }))
  .on('GET /balances', () => ({ body: { data: [] } }));

let f: ClientFixture;
let rt: DeskRuntime;
let payouts: ReturnType<typeof payoutsService>;

beforeAll(async () => {
  await gw.start();
  f = await clientFixture(gw.url);
  rt = createDeskRuntime({ ctx: f.ctx, events: createDeskEvents(), log: silentLogger });
  payouts = payoutsService(rt, createCurrencyCache(rt));
});
afterAll(async () => {
  await rt.close();
  f.ctx.close();
  await gw.stop();
});

const input = (over: Partial<PayoutInput> = {}): PayoutInput => ({
  amount: '1250.50',
  currencyCode: 'EUR',
  accountName: 'Zoë "Jane" Doe \\ Ünïcode',
  accountNumber: 'DE89370400440532013000',
  paymentOperatorCode: 'EU_SEPA',
  emailAddress: 'jane@example.com',
  reference: 'kept locally, never sent',
  ...over,
});

describe('review screen body = sent body', () => {
  it.each([
    ['EUR with a callback URL', input({ callbackUrl: 'https://desk.example.com/cb?a=1&b=2' })],
    ['KWD, three decimals', input({ amount: '0.001', currencyCode: 'KWD' })],
    ['JPY, no decimals, another method', input({ amount: '100', currencyCode: 'JPY', paymentMethodCode: 'CASH' })],
  ])('%s: payouts:validate shows exactly the bytes payouts:create sends', async (_label, payout) => {
    const profile = f.ctx.profiles.get(f.profileId);
    const validation = await payouts.validate(profile, payout);
    expect(validation.issues).toEqual([]);
    const preview = validation.preview!;

    await payouts.create(profile, { ...payout, idPayout: preview.idPayout });
    const sent = gw.requestsTo('POST /payouts/:id').filter((r) => r.url.endsWith(`/${preview.idPayout}`));
    expect(sent).toHaveLength(1);
    expect(sent[0]!.body).toBe(preview.requestBody);
    expect(preview.requestBody).not.toContain('never sent');
  });

  it('the client sends what the builder writes for the same fields and decimals', async () => {
    const draft: PayoutDraft = {
      idPayout: 'direct-1', amountMinor: 999_999_999_999_999, currencyCode: 'EUR', accountName: 'Jane Doe', accountNumber: 'DE89370400440532013000',
      paymentOperatorCode: 'EU_SEPA', paymentMethodCode: 'BANK_TRANSFER', emailAddress: 'jane@example.com', callbackUrl: 'https://desk.example.com/cb',
    };
    await f.ctx.gatewayFor(f.profileId).createPayout(draft.idPayout, payoutFieldsOf(draft));
    const body = gw.requestsTo('POST /payouts/:id').find((r) => r.url.endsWith('/direct-1'))!.body;
    expect(body).toBe(payoutRequestBody(draft, 2));
    expect(body).toBe(
      '{"paymentRequested":{"money":{"amount":9999999999999.99,"currencyCode":"EUR"}},"paymentMethod":{"paymentMethodCode":"BANK_TRANSFER","paymentOperatorCode":"EU_SEPA","account":{"accountName":"Jane Doe","accountNumber":"DE89370400440532013000"},"emailAddress":"jane@example.com"},"callbackUrl":"https://desk.example.com/cb"}',
    );
  });
});
