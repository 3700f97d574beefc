// A payment link's input as main checks it: the contract schema (shape, positive plain decimal, validity 1 h to
// 30 days, a one-line reference), then the payins service against the currency cache (the gateway offers the
// currency, the amount is exact to its decimals); where a link stands; and the text a customer is sent.
import { describe, expect, it } from 'vitest';
import { PAYMENT_LINK_HOURS } from '../../../contract/api';
import { ARG_SCHEMAS } from '../../../contract/schemas';
import { decimalsFrom } from '../../../main/desk/convert';
import { checkedLink, linkDetailsOf, linkStateOf, shareTextOf } from '../../../main/desk/payment-links';
import { DeskError } from '../../../main/desk/services';

const schema = ARG_SCHEMAS.payins.createLink;
const problemsOf = (args: unknown) => {
  const r = schema.safeParse(args);
  return r.success ? [] : r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
};

describe('payins:createLink arguments (contract/schemas.ts)', () => {
  it('takes an amount, a currency, and optionally a validity in hours and a reference', () => {
    expect(schema.parse({ amount: '25.00', currencyCode: 'EUR' })).toEqual({ amount: '25.00', currencyCode: 'EUR' });
    expect(schema.parse({ amount: '0.01', currencyCode: 'USD', validityHours: 720, reference: '  INV-7  ' })).toEqual({ amount: '0.01', currencyCode: 'USD', validityHours: 720, reference: 'INV-7' });
  });

  it.each([
    ['0', 'amount: must be greater than zero'],
    ['0.00', 'amount: must be greater than zero'],
    ['-5', 'amount: must be a plain decimal such as 1250.50'],
    ['1e3', 'amount: must be a plain decimal such as 1250.50'],
    ['25,00', 'amount: must be a plain decimal such as 1250.50'],
    ['', 'amount: must be a plain decimal such as 1250.50'],
  ])('refuses the amount %j', (amount, problem) => {
    expect(problemsOf({ amount, currencyCode: 'EUR' })).toContain(problem);
  });

  it.each([
    [0, 'validityHours: at least 1 hour'],
    [721, 'validityHours: at most 720 hours (30 days)'],
    [1.5, 'validityHours: must be a whole number of hours'],
  ])('refuses a validity of %j hours', (validityHours, problem) => {
    expect(problemsOf({ amount: '25.00', currencyCode: 'EUR', validityHours })).toContain(problem);
  });

  it('refuses a lower-case currency, a reference over 140 characters or on two lines, and unknown keys', () => {
    expect(problemsOf({ amount: '25.00', currencyCode: 'eur' })).toEqual(['currencyCode: must be a three-letter code such as EUR']);
    expect(problemsOf({ amount: '25.00', currencyCode: 'EUR', reference: 'x'.repeat(141) })).toEqual(['reference: at most 140 characters']);
    expect(problemsOf({ amount: '25.00', currencyCode: 'EUR', reference: 'INV-1\nToken: forged' })).toEqual(['reference: must be one line without control characters']);
    expect(problemsOf({ amount: '25.00', currencyCode: 'EUR', idPayin: 'mine' })).toHaveLength(1);
    expect(problemsOf({ amount: '25.00', currencyCode: 'EUR', token: 'x' })).toHaveLength(1);
  });
});

describe('checkedLink: the money against the currency cache', () => {
  // The gateway's list: EUR with 2 decimals, JPY with none, and a currency ISO does not know, with 3.
  const gateway = decimalsFrom(new Map([['EUR', 2], ['JPY', 0], ['XTS', 3]]));
  const offered = ['EUR', 'JPY', 'XTS'];
  const refusal = (fn: () => unknown) => {
    try {
      fn();
    } catch (error) {
      if (error instanceof DeskError) return { code: error.code, fields: error.issues.map((i) => i.field) };
      throw error;
    }
    throw new Error('not refused');
  };

  it('turns the amount into exact minor units of its currency, with 72 hours when no validity is given', () => {
    expect(checkedLink({ amount: '25.10', currencyCode: 'EUR' }, gateway, offered)).toEqual({ amountMinor: 2510, currencyCode: 'EUR', validityHours: PAYMENT_LINK_HOURS.default });
    expect(checkedLink({ amount: '1500', currencyCode: 'JPY', validityHours: 1 }, gateway, offered)).toEqual({ amountMinor: 1500, currencyCode: 'JPY', validityHours: 1 });
    expect(checkedLink({ amount: '0.125', currencyCode: 'XTS' }, gateway, offered).amountMinor).toBe(125);
    // Large amounts stay exact: no float arithmetic on the way.
    expect(checkedLink({ amount: '90071992547409.91', currencyCode: 'EUR' }, gateway, offered).amountMinor).toBe(9_007_199_254_740_991);
  });

  it('refuses more decimals than the currency has, naming the amount field', () => {
    expect(refusal(() => checkedLink({ amount: '25.001', currencyCode: 'EUR' }, gateway, offered))).toEqual({ code: 'AMOUNT_PRECISION', fields: ['amount'] });
    expect(refusal(() => checkedLink({ amount: '1500.5', currencyCode: 'JPY' }, gateway, offered))).toEqual({ code: 'AMOUNT_PRECISION', fields: ['amount'] });
  });

  it('refuses zero, a number beyond exact integers and a currency the gateway does not offer', () => {
    expect(refusal(() => checkedLink({ amount: '0.00', currencyCode: 'EUR' }, gateway, offered))).toEqual({ code: 'AMOUNT_NOT_POSITIVE', fields: ['amount'] });
    expect(refusal(() => checkedLink({ amount: '99999999999999999.99', currencyCode: 'EUR' }, gateway, offered))).toEqual({ code: 'AMOUNT_RANGE', fields: ['amount'] });
    const unknown = refusal(() => checkedLink({ amount: '25.00', currencyCode: 'GBP' }, gateway, offered));
    expect(unknown).toEqual({ code: 'CURRENCY_UNKNOWN', fields: ['currencyCode'] });
    expect(() => checkedLink({ amount: '25.00', currencyCode: 'GBP' }, gateway, offered)).toThrow('the gateway does not offer GBP; use one of EUR, JPY, XTS');
  });

  it('without the gateway\'s list (it could not be read) takes ISO 4217 decimals and any currency', () => {
    const iso = decimalsFrom(undefined);
    expect(checkedLink({ amount: '12.345', currencyCode: 'KWD' }, iso, null).amountMinor).toBe(12_345);
    expect(refusal(() => checkedLink({ amount: '12.5', currencyCode: 'JPY' }, iso, null)).code).toBe('AMOUNT_PRECISION');
  });

  it('refuses a validity outside 1 hour to 30 days when called without the schema (the CLI goes through it too)', () => {
    expect(refusal(() => checkedLink({ amount: '1.00', currencyCode: 'EUR', validityHours: 721 }, gateway, offered))).toEqual({ code: 'VALIDITY_RANGE', fields: ['validityHours'] });
  });
});

describe('where a link stands', () => {
  const link = { expiresAt: '2026-12-01T12:00:00.000Z', validityHours: 72 };
  const before = Date.parse(link.expiresAt) - 1;
  const after = Date.parse(link.expiresAt);

  it.each([
    [{ state: 'QUEUED', status: 'QUEUED', isFinal: false }, before, 'waiting'],
    [{ state: 'QUEUED', status: 'QUEUED', isFinal: false }, after, 'expired'],
    [{ state: 'CANCELLED', status: 'CANCELLED', isFinal: true }, after, 'expired'],
    [{ state: 'ACCEPTED', status: 'PENDING', isFinal: false }, after, 'paying'],
    [{ state: 'ACCEPTED', status: 'SUCCESS', isFinal: true }, before, 'paid'],
    [{ state: 'ACCEPTED', status: 'EXPIRED', isFinal: true }, before, 'expired'],
    [{ state: 'ACCEPTED', status: 'FAILED', isFinal: true }, before, 'failed'],
    [{ state: 'MISMATCH', status: 'MISMATCH', isFinal: false }, before, 'failed'],
  ] as const)('%j at %d is %s', (payin, now, state) => {
    expect(linkStateOf(payin, link, now)).toBe(state);
  });

  it('reads a link only from well-formed details', () => {
    expect(linkDetailsOf({ link })).toEqual(link);
    expect(linkDetailsOf({ returnUrl: 'https://shop.example' })).toBeNull();
    expect(linkDetailsOf({ link: { expiresAt: 'soon', validityHours: 72 } })).toBeNull();
    expect(linkDetailsOf(null)).toBeNull();
  });
});

describe('the text a customer is sent', () => {
  const base = { idPayin: 'b2f0c7a4-1', money: { amount: '25.00', currencyCode: 'EUR' }, expiresAt: '2026-12-01T12:00:00.000Z', gatewayUrl: 'https://gateway.example', apiMajorVersion: 2, token: 'eyJh.eyJi.sig' };

  it('holds the amount, the expiry, the gateway, the payin id and the token, and what the token allows', () => {
    const text = shareTextOf({ ...base, reference: 'INV-7' });
    expect(text.split('\n')).toEqual([
      'Payment request: 25.00 EUR',
      'Reference: INV-7',
      'Valid until: 2026-12-01 12:00:00 UTC',
      '',
      'For the payment page (it creates the payin with these):',
      'Gateway: https://gateway.example (X-API-Version: 2)',
      'Payin id: b2f0c7a4-1',
      'Token: eyJh.eyJi.sig',
      'The token allows only POST /payins/!availablePaymentOptions, POST /payins/b2f0c7a4-1 and GET /payins/b2f0c7a4-1, for exactly 25.00 EUR.',
    ]);
    expect(shareTextOf({ ...base, reference: null })).not.toContain('Reference');
  });
});
