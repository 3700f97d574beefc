// The canonical manifest: stable bytes, every signed field changes the digest, exact totals.
import { describe, expect, it } from 'vitest';
import { canonicalJson, CanonicalError } from '../../../main/approvals/canonical';
import { compareDecimal, manifestDigest } from '../../../main/approvals/manifest';
import { manifest, row } from './helpers';

describe('canonical JSON', () => {
  it('sorts keys at every depth, drops undefined members, and writes no whitespace', () => {
    expect(canonicalJson({ b: 1, a: { d: [true, null, 'x'], c: 'é"' }, u: undefined })).toBe('{"a":{"c":"é\\"","d":[true,null,"x"]},"b":1}');
    expect(canonicalJson({ b: 1, a: 2 })).toBe(canonicalJson({ a: 2, b: 1 }));
  });

  it('refuses what has no single canonical form: floats, NaN, undefined in arrays, Dates, Maps', () => {
    for (const bad of [{ x: 1.5 }, { x: Number.NaN }, [undefined], { d: new Date(0) }, new Map(), { n: 2 ** 60 }]) {
      expect(() => canonicalJson(bad)).toThrow(CanonicalError);
    }
  });
});

describe('the manifest', () => {
  const rows = [row('p1', 125050), row('p2', 1, { currencyCode: 'JPY' }), row('p3', 99, { currencyCode: 'EUR' })];

  it('writes amounts as decimal strings with their decimals and totals per currency, exactly', () => {
    const m = manifest(rows);
    expect(m.rows.map((r) => r.amount)).toEqual(['1250.50', '1', '0.99']);
    expect(m.totals).toEqual([{ currency: 'EUR', amount: '1251.49', count: 2 }, { currency: 'JPY', amount: '1', count: 1 }]);
    expect(m.decimals).toEqual({ EUR: 2, JPY: 0 });
    // Beyond 2^53 minor units in total: still exact.
    const big = manifest([row('a', Number.MAX_SAFE_INTEGER), row('b', Number.MAX_SAFE_INTEGER)]);
    expect(big.totals[0]!.amount).toBe('180143985094819.82');
  });

  it('gives the same digest for the same content, and another one when any signed field changes', () => {
    const base = manifestDigest(manifest(rows));
    expect(manifestDigest(manifest(rows.map((r) => ({ ...r }))))).toBe(base);
    const changed = [
      manifest([{ ...rows[0]!, amountMinor: 125051 }, rows[1]!, rows[2]!]),
      manifest([{ ...rows[0]!, accountNumber: 'NL91ABNA0417164301' }, rows[1]!, rows[2]!]),
      manifest([{ ...rows[0]!, accountName: 'Grace  Hopper' }, rows[1]!, rows[2]!]),
      manifest([{ ...rows[0]!, emailAddress: 'mallory@example.com' }, rows[1]!, rows[2]!]),
      manifest([{ ...rows[0]!, paymentOperatorCode: 'OTHER' }, rows[1]!, rows[2]!]),
      manifest([{ ...rows[0]!, currencyCode: 'USD' }, rows[1]!, rows[2]!]),
      manifest([{ ...rows[0]!, callbackUrl: 'https://mallory.example/callback' }, rows[1]!, rows[2]!]),
      manifest([rows[1]!, rows[0]!, rows[2]!]),
      manifest(rows.slice(0, 2)),
      manifest(rows, { fileSha256: 'b'.repeat(64) }),
      manifest(rows, { policyVersion: 1 }),
      manifest(rows, { preparedBy: 'someone-else' }),
      manifest(rows, { subject: { kind: 'batch', id: 'batch-2' } }),
      manifest(rows, { profileId: 'prof-2' }),
    ].map(manifestDigest);
    expect(new Set([base, ...changed]).size).toBe(changed.length + 1);
  });

  it('is version 2: every row carries the callback address its create is sent with ("" for none)', () => {
    const m = manifest([row('p1', 100), row('p2', 200, { callbackUrl: 'https://desk.example/cb?id=p2' })]);
    expect(m).toMatchObject({ format: 'payout-desk/manifest', version: 2 });
    expect(m.rows.map((r) => r.callbackUrl)).toEqual(['', 'https://desk.example/cb?id=p2']);
    // A row gaining a callback address is another manifest: what was approved without one is not what would be sent.
    expect(manifestDigest(manifest([row('p1', 100, { callbackUrl: 'https://desk.example/cb' })]))).not.toBe(manifestDigest(manifest([row('p1', 100)])));
  });

  it('compares decimal amounts exactly', () => {
    expect(compareDecimal('1000', '999.99')).toBe(1);
    expect(compareDecimal('1000.00', '1000')).toBe(0);
    expect(compareDecimal('0.1', '0.10000000000000000001')).toBe(-1);
  });
});

describe('the manifest written in pieces', () => {
  it('is exactly its canonical JSON, whatever the text in the rows', async () => {
    const { canonicalJson } = await import('../../../main/approvals/canonical');
    const { manifestCanonicalPieces, manifestDigests } = await import('../../../main/approvals/manifest');
    const { createHash } = await import('node:crypto');
    const tricky = ['Zoë "Quotes" \\ back', 'line\nbreak\t', '"rows":[]', '😀 emoji', '\u2028', 'ß'];
    const rows = Array.from({ length: 3000 }, (_, i) =>
      row(`id-${i}`, i + 1, {
        accountName: tricky[i % tricky.length]!, emailAddress: `${tricky[(i + 1) % tricky.length]}@x`, currencyCode: i % 2 ? 'EUR' : 'JPY',
        callbackUrl: i % 3 ? null : `https://desk.example/${tricky[(i + 2) % tricky.length]}`,
      }),
    );
    for (const m of [manifest([]), manifest(rows.slice(0, 1)), manifest(rows, { fileSha256: null, preparedBy: null })]) {
      const text = canonicalJson(m);
      expect([...manifestCanonicalPieces(m)].join('')).toBe(text);
      expect(manifestDigest(m)).toBe(createHash('sha256').update(text, 'utf8').digest('hex'));
      // The gate's one pass for the approvals' digest and the preparer's gives each exactly.
      const variant = { policyVersion: 7, preparedAt: 0 };
      expect(manifestDigests(m, [{}, variant])).toEqual([manifestDigest(m), createHash('sha256').update(canonicalJson({ ...m, ...variant }), 'utf8').digest('hex')]);
    }
  });
});
