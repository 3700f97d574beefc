// A statement as issued: its figures have one digest however the statement is read again, the generation time and
// the lines' sentences are not figures, and a figure that moved is named with what it was and what it is.
import { describe, expect, it } from 'vitest';
import type { StatementView } from '../../../contract/api';
import { buildStatement } from '../../../main/statements/build';
import { changesSince, figuresDigest, figuresJson } from '../../../main/statements/issued';
import { CLOSING, decimalsOf, journalOf, LATER, NOV, november, OPENING, payout } from './fixtures';

const statement = (payments = november): Promise<StatementView> => buildStatement(journalOf([OPENING, CLOSING], payments), decimalsOf, NOV, null, LATER);

describe('an issued statement', () => {
  it('has one digest for the same figures, whenever it was made and however its sentences read', async () => {
    const a = await statement();
    const b = { ...(await statement()), generatedAt: '2027-01-01T00:00:00.000Z' };
    b.currencies = b.currencies.map((c) => ({ ...c, lines: c.lines.map((l) => ({ ...l, text: `${l.text} (reworded)` })) }));
    expect(figuresDigest(figuresJson(a))).toBe(figuresDigest(figuresJson(b)));
    expect(changesSince(figuresJson(a), b)).toEqual([]);
  });

  it('names every figure a late observation moved: a payout of the period seen paid after the statement was issued', async () => {
    const issued = figuresJson(await statement());
    const late = payout('p-seen-late', 2_500, 'SUCCESS', '2026-11-20T10:00:00.000Z', { feeMinor: 25 });
    const now = await statement([...november, late]);
    const changes = changesSince(issued, now);
    // The closing read did not move, so the expected closing and the difference did: nothing else explains the payout.
    expect(changes).toEqual([
      { figure: 'EUR difference', issued: '0.00', now: '25.25' },
      { figure: 'EUR expected closing', issued: '1103.85', now: '1078.60' },
      { figure: 'EUR fees', issued: '1.50', now: '1.75' },
      { figure: 'EUR line unexplained', issued: '—', now: '25.25' },
      { figure: 'EUR payouts paid amount', issued: '150.00', now: '175.00' },
      { figure: 'EUR payouts paid count', issued: '2', now: '3' },
    ]);
    expect(figuresDigest(issued)).not.toBe(figuresDigest(figuresJson(now)));
  });
});
