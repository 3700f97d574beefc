// What another desk's journal_changes notification names. Any role connected to the team database can NOTIFY
// the channel with anything: a payload not shaped as the triggers write it names nothing and never throws
// (it would throw inside pg's socket handler), and one payload names at most 1000 changes.
import { describe, expect, it } from 'vitest';
import { journalChanges } from '../../../main/store/postgres/change-feed';

const ME = 'desk-me';
const read = (payload: unknown): ReturnType<typeof journalChanges> => journalChanges(typeof payload === 'string' ? payload : JSON.stringify(payload), ME);

describe('journalChanges', () => {
  it("reads the payments and batches another desk's write names, as the trigger writes them", () => {
    const payload = { desk: 'desk-other', payments: [{ kind: 'payout', id: 'p1', batch: 'b1' }, { kind: 'payin', id: 'i1', batch: null }], batches: ['b2'] };
    expect(read(payload)).toEqual([
      { kind: 'payment', paymentKind: 'payout', id: 'p1', batchId: 'b1' },
      { kind: 'payment', paymentKind: 'payin', id: 'i1', batchId: null },
      { kind: 'batch', id: 'b2' },
    ]);
    // A write from a connection without a desk id (a script on the database) is another desk's too.
    expect(read({ desk: null, payments: null, batches: ['b3'] })).toEqual([{ kind: 'batch', id: 'b3' }]);
    const longest = 'A'.repeat(64);
    expect(read({ payments: [{ kind: 'payout', id: longest, batch: '9b2f0c1e-1d5a-4a53-8a4e-2b0a1f3c4d5e' }] })).toEqual([
      { kind: 'payment', paymentKind: 'payout', id: longest, batchId: '9b2f0c1e-1d5a-4a53-8a4e-2b0a1f3c4d5e' },
    ]);
  });

  it("drops this desk's own writes", () => {
    expect(read({ desk: ME, payments: [{ kind: 'payout', id: 'p1', batch: null }], batches: ['b1'] })).toEqual([]);
  });

  it.each([
    ['null', 'null'],
    ['a number', '5'],
    ['a string', '"journal"'],
    ['true', 'true'],
    ['an array', '[{"kind":"payout","id":"p1","batch":null}]'],
    ['not JSON', 'not json {'],
    ['the empty payload', ''],
    ['a counter value', '9223372036854775807'],
    ['payments as a number', '{"payments":5}'],
    ['payments as an object', '{"payments":{"kind":"payout","id":"p1"}}'],
    ['batches as a number', '{"batches":7}'],
    ['batches as a string', '{"batches":"b1"}'],
    ['the desk as a number', '{"desk":5,"batches":["b1"]}'],
  ])('names nothing for %s', (_what, payload) => {
    expect(() => journalChanges(payload, ME)).not.toThrow();
    expect(journalChanges(payload, ME)).toEqual([]);
  });

  it('skips entries that are not a payment or a batch id, and keeps the well-formed ones beside them', () => {
    const junk = [
      null, 5, 'p1', [], {}, [{ kind: 'payout', id: 'p1' }],
      { kind: 'payout', id: 5 },
      { kind: 'payout', id: null },
      { kind: 'payout', id: '' },
      { kind: 'payout', id: { toString: 'x' } },
      { kind: 'payout', id: ['p1'] },
      { kind: 'refund', id: 'p1', batch: null },
      { kind: ['payout'], id: 'p1', batch: null },
      { kind: 'payout', id: 'p1', batch: 7 },
      { kind: 'payout', id: 'p1', batch: { id: 'b1' } },
      { kind: 'payout', id: 'x'.repeat(10_000), batch: null },
      { kind: 'payout', id: 'x'.repeat(65), batch: null },
      { kind: 'payout', id: 'p/../1', batch: null },
      { kind: 'payout', id: 'p1\u0000', batch: null },
      { kind: 'payout', id: 'p1', batch: 'x'.repeat(10_000) },
      { __proto__: { kind: 'payout', id: 'p1' } },
    ];
    expect(read({ payments: junk })).toEqual([]);
    expect(read({ payments: [null] })).toEqual([]);
    expect(read({ payments: [{ kind: 'payout', id: 5 }] })).toEqual([]);
    expect(read({ batches: [null, 7, {}, [], ['b1'], '', 'x'.repeat(10_000)] })).toEqual([]);
    expect(read({ payments: [...junk, { kind: 'payout', id: 'p9', batch: null }], batches: [null, 'b9'] })).toEqual([
      { kind: 'payment', paymentKind: 'payout', id: 'p9', batchId: null },
      { kind: 'batch', id: 'b9' },
    ]);
  });

  it('ignores nested junk and unknown fields without throwing', () => {
    const deep = `${'['.repeat(20_000)}${']'.repeat(20_000)}`;
    expect(read(`{"payments":[${deep}],"batches":[${deep}]}`)).toEqual([]);
    expect(read(`{"payments":${deep}}`)).toEqual([]);
    expect(read({ desk: 'desk-other', extra: { a: [1, 2, { b: null }] }, payments: [{ kind: 'payin', id: 'i1', batch: null, more: [1] }] })).toEqual([
      { kind: 'payment', paymentKind: 'payin', id: 'i1', batchId: null },
    ]);
    expect(read('{"__proto__":{"desk":"desk-me"},"batches":["b1"]}')).toEqual([{ kind: 'batch', id: 'b1' }]);
  });

  it('takes at most 1000 changes from one payload, however many it names', () => {
    const payments = Array.from({ length: 2_000 }, (_, i) => ({ kind: 'payout', id: `p${i}`, batch: null }));
    const batches = Array.from({ length: 2_000 }, (_, i) => `b${i}`);
    const changes = read({ payments, batches });
    expect(changes).toHaveLength(1000);
    expect(changes[0]).toEqual({ kind: 'payment', paymentKind: 'payout', id: 'p0', batchId: null });
    expect(read({ batches })).toHaveLength(1000);
    // A payload far larger than any PostgreSQL delivers (8000 bytes) is not read at all.
    expect(read({ batches: Array.from({ length: 100_000 }, () => 'b1') })).toEqual([]);
  });
});
