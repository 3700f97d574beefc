// The journal's read side on the team database answers exactly as the SQLite journal does for the same
// rows: one varied data set (kinds, states, currencies, batches, tied times and amounts, names with
// accents and case, LIKE's own characters) is journaled in SQLite, copied row for row into PostgreSQL,
// and every query of a matrix (filters × sort keys × directions × pages) must give equal pages.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { copyJournalToPg } from '../../../main/store/postgres/copy';
import { iterateHistoryPg, paymentTimelinePg, queryHistoryPg, UnsafeIntegerError } from '../../../main/store/postgres/history';
import { migratePg } from '../../../main/store/postgres/migrations';
import { HISTORY_SORT_KEYS, type HistoryFilter, type HistoryQuery, type NewPayment, type PaymentRecord } from '../../../main/journal';
import { payout, tempJournal, type TempJournal } from '../../unit/journal/helpers';
import { freshDatabase } from './cluster';

const T0 = Date.UTC(2026, 0, 1);
const NAMES = [
  'Élodie Dupont', 'ÉLODIE MARTIN', 'élodie petit', 'Elodie Sans Accent', 'José Núñez', 'JOSÉ NÚÑEZ', 'Zoë Ørsted', 'Łukasz Żak',
  'Straße GmbH', 'STRASSE AG', 'Ada Lovelace', 'ada lovelace', 'Grace 100% Sure', 'under_score Ltd', 'back\\slash & Co', 'Ünal Çelik',
];
const REFERENCES = [undefined, 'INV-1001', 'rent 50% off', 'ref_under', 'Ref-Élan', 'inv-2002'];
const CURRENCIES = ['EUR', 'EUR', 'USD', 'GBP', 'JPY', 'KWD'];
const AMOUNTS = [100, 250, 12_550, 12_550, 999_999, 5_000_000_000_000];
const STEPS = [0, 0, 1, 1_000, 3_600_000, 86_400_000];

let t: TempJournal;
const batchIds: string[] = [];

/** Deterministic choices (mulberry32), so a failure replays. */
function chooser(seed: number): <T>(xs: readonly T[]) => T {
  let a = seed;
  const next = () => {
    a = (a + 0x6d2b79f5) | 0;
    let x = Math.imul(a ^ (a >>> 15), 1 | a);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4_294_967_296;
  };
  return (xs) => xs[Math.floor(next() * xs.length)]!;
}

function seedJournal(): void {
  let clock = T0;
  t = tempJournal({ now: () => clock });
  const j = t.journal;
  const pick = chooser(15);
  const fields = (n: number): NewPayment => {
    const name = pick(NAMES);
    return payout(n % 7 === 0 ? `PO-${n}` : `po-${n}`, {
      amountMinor: pick(AMOUNTS),
      currencyCode: pick(CURRENCIES),
      accountName: name,
      accountNumber: n % 3 === 0 ? `GB29NWBK6016133192${String(n).padStart(4, '0')}` : `DE8937040044053201${String(n).padStart(4, '0')}`,
      emailAddress: n % 5 === 0 ? `FIRST_LAST${n}@EXAMPLE.COM` : `${name.split(' ')[0]!.toLowerCase()}.${n}@example.com`,
      reference: pick(REFERENCES),
    });
  };
  let n = 0;
  for (let round = 0; round < 4; round++) {
    for (let i = 0; i < 25; i++) {
      clock += pick(STEPS);
      n++;
      if (n % 6 === 0) j.insertPayment('payin', { ...fields(n), details: { returnUrl: 'https://shop.example/back', expireAt: '2026-12-31T00:00:00Z', nested: { b: 1, a: [1, 2] } } });
      else j.insertPayment('payout', fields(n));
    }
    clock += pick(STEPS);
    const id = `batch-${round}`;
    batchIds.push(id);
    j.createBatch({ id, fileName: `${id}.csv`, sha256: `sha-${round}`, rows: Array.from({ length: 8 + round * 3 }, () => fields(++n)) });
  }
  // Move most payments on: gateway statuses (final or not, with fees), unknown outcomes, cancellations.
  const ids = (j.db.prepare('SELECT kind, id FROM payments ORDER BY pk').all() as { kind: 'payout' | 'payin'; id: string }[]);
  for (const { kind, id } of ids) {
    clock += pick([0, 1, 500]);
    const fate = pick(['queued', 'success', 'success', 'failed', 'processing', 'pending', 'unknown', 'cancelled'] as const);
    if (fate === 'queued') continue;
    if (fate === 'cancelled') {
      j.cancelUnsent(kind, [id]);
      continue;
    }
    j.markSending(kind, id);
    if (fate === 'unknown') {
      j.markUnknown(kind, id, 'socket hang up', clock + 60_000);
      continue;
    }
    const status = fate.toUpperCase();
    const isFinal = fate === 'success' || fate === 'failed';
    j.recordObservation(kind, id, {
      status, source: pick(['create', 'poll', 'callback'] as const), isFinal, nextPollAt: isFinal ? null : clock + 10_000,
      ...(isFinal ? { feeMinor: pick([0, 35, 120]), feeCurrencyCode: 'EUR', processedAt: '2026-03-01T10:00:00.000Z', isTest: pick([true, false]) } : {}),
      ...(fate === 'failed' ? { failureReason: 'ACCOUNT_CLOSED' } : {}),
      raw: { status, id },
    });
  }
}

/**
 * A team database whose own collation is ICU's English one (case- and accent-aware sorting, lower()
 * over Unicode), unlike the test cluster's "C": the adapter must answer the same on both.
 */
async function icuDatabase(clusterUrl: string): Promise<string> {
  const name = `t_icu_${Math.random().toString(36).slice(2, 10)}`;
  const client = new pg.Client({ connectionString: clusterUrl });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${name} TEMPLATE template0 ENCODING 'UTF8' LOCALE 'C' LOCALE_PROVIDER icu ICU_LOCALE 'en-US'`);
  } finally {
    await client.end();
  }
  return clusterUrl.replace(/\/[^/]*$/, `/${name}`);
}

const pools: pg.Pool[] = [];
beforeAll(() => seedJournal());
afterAll(async () => {
  for (const p of pools.splice(0)) await p.end();
  t?.dispose();
});

const DAY = 86_400_000;
/** Filters, each with whether the data set must give it at least one row (so no case passes empty). */
const FILTERS: [HistoryFilter, 'some' | 'none'][] = [
  [{}, 'some'],
  [{ kind: 'payin' }, 'some'],
  [{ kinds: ['payout', 'payin'] }, 'some'],
  [{ kind: 'payout', kinds: ['payin'] }, 'some'],
  [{ statuses: ['success'] }, 'some'],
  [{ statuses: ['QUEUED', 'unknown', 'Failed', 'CANCELLED'] }, 'some'],
  [{ currencyCode: 'eur' }, 'some'],
  [{ currencyCodes: ['USD', 'jpy'] }, 'some'],
  [{ currencyCode: 'GBP', currencyCodes: ['KWD'] }, 'some'],
  [{ batchId: 'batch-1' }, 'some'],
  [{ batchId: 'no-such-batch' }, 'none'],
  [{ from: T0 + 3 * DAY, to: T0 + 9 * DAY }, 'some'],
  [{ from: T0 + 5 * DAY + 0.5 }, 'some'],
  [{ to: T0 + 5 * DAY - 0.5 }, 'some'],
  [{ from: T0 + 5 * DAY, to: T0 + 5 * DAY }, 'none'],
  [{ from: Number.NaN }, 'none'],
  [{ to: Number.POSITIVE_INFINITY }, 'some'],
  [{ from: Number.NEGATIVE_INFINITY, to: T0 + 2 * DAY }, 'some'],
  // Text from 3 characters: a substring of one field, case-insensitive over Unicode.
  [{ text: 'élodie' }, 'some'],
  [{ text: 'ÉLODIE' }, 'some'],
  [{ text: 'elodie' }, 'some'],
  [{ text: 'núñez' }, 'some'],
  [{ text: 'ÑEZ' }, 'some'],
  [{ text: 'straße' }, 'some'],
  [{ text: 'STRASSE' }, 'some'],
  [{ text: 'zoë ør' }, 'some'],
  [{ text: 'łuk' }, 'some'],
  [{ text: 'ünal' }, 'some'],
  [{ text: 'lovelace' }, 'some'],
  [{ text: '  Ada Lov  ' }, 'some'],
  [{ text: '100%' }, 'some'],
  [{ text: '% s' }, 'some'],
  [{ text: '50% off' }, 'some'],
  [{ text: 'r_s' }, 'some'],
  [{ text: 'f_u' }, 'some'],
  [{ text: 'd_r' }, 'none'],
  [{ text: 'k\\s' }, 'some'],
  [{ text: 'first_last' }, 'some'],
  [{ text: '@example.com' }, 'some'],
  [{ text: 'gb29nwbk' }, 'some'],
  [{ text: 'po-1' }, 'some'],
  [{ text: 'inv-' }, 'some'],
  [{ text: 'ref-él' }, 'some'],
  [{ text: 'ont\u0001' }, 'none'],
  [{ text: 'x😀' }, 'none'],
  [{ text: 'a"b' }, 'none'],
  [{ text: 'zzz' }, 'none'],
  // Shorter: LIKE, which ignores the case of ASCII letters only.
  [{ text: 'ad' }, 'some'],
  [{ text: 'AD' }, 'some'],
  [{ text: 'é' }, 'some'],
  [{ text: 'É' }, 'some'],
  [{ text: 'ß' }, 'some'],
  [{ text: '%' }, 'some'],
  [{ text: '_' }, 'some'],
  [{ text: '\\' }, 'some'],
  [{ text: ' 1 ' }, 'some'],
  [{ text: 'q' }, 'none'],
  // Together.
  [{ statuses: ['SUCCESS', 'PENDING'], currencyCode: 'EUR', text: 'élo' }, 'some'],
  [{ batchId: 'batch-2', kind: 'payout', text: 'a' }, 'some'],
  [{ from: T0 + DAY, to: T0 + 12 * DAY, currencyCodes: ['EUR', 'USD'], statuses: ['QUEUED', 'SUCCESS'], kinds: ['payout'] }, 'some'],
];

const PAGES: Pick<HistoryQuery, 'page' | 'pageSize'>[] = [{}, { page: 0, pageSize: 7 }, { page: 2, pageSize: 7 }, { page: 1, pageSize: 1000 }];
const CLAMPED: Pick<HistoryQuery, 'page' | 'pageSize'>[] = [{ pageSize: 0 }, { page: -1, pageSize: 3 }, { page: 1.9, pageSize: 2.7 }, { pageSize: 5_000 }, { page: 1_000, pageSize: 50 }];

const ids = (rows: PaymentRecord[]) => rows.map((r) => `${r.kind}:${r.id}`);

describe.each([
  ['a "C" database', (url: string) => freshDatabase(url)],
  ["a database collating by ICU's en-US", icuDatabase],
])('history on PostgreSQL (%s) is the SQLite history, for the same rows', (_name, database) => {
  let pool: pg.Pool;
  beforeAll(async () => {
    pool = new pg.Pool({ connectionString: await database(inject('postgresUrl')), max: 4 });
    pools.push(pool);
    await migratePg(pool);
    await copyJournalToPg(t.journal.db, pool);
    // The database's own collation must really differ from "C", or this case proves nothing.
    const order = await pool.query<{ w: string }>(`SELECT w FROM (VALUES ('b'), ('B'), ('a')) v (w) ORDER BY w`);
    if (database === icuDatabase) expect(order.rows.map((r) => r.w)).toEqual(['a', 'b', 'B']);
  });

  it.each(FILTERS.map(([filter, matches]) => [JSON.stringify(filter, (_k, v: unknown) => (typeof v === 'number' && !Number.isFinite(v) ? String(v) : v)), filter, matches] as const))('%s', async (_name, filter, expected) => {
    const j = t.journal;
    expect(j.history(filter).total > 0).toBe(expected === 'some');
    for (const sortBy of HISTORY_SORT_KEYS) {
      for (const sortDir of ['asc', 'desc'] as const) {
        for (const paging of PAGES) {
          const query: HistoryQuery = { ...filter, sortBy, sortDir, ...paging };
          const [want, got] = [j.history(query), await queryHistoryPg(pool, query)];
          // Ids first: a wrong order or set reads better than a deep diff of records.
          expect(ids(got.rows), JSON.stringify(query)).toEqual(ids(want.rows));
          expect(got, JSON.stringify(query)).toEqual(want);
        }
      }
    }
  });

  it('clamps pages and page sizes the same way', async () => {
    for (const paging of CLAMPED) {
      const query: HistoryQuery = { currencyCode: 'EUR', sortBy: 'amountMinor', ...paging };
      expect(await queryHistoryPg(pool, query), JSON.stringify(query)).toEqual(t.journal.history(query));
    }
  });

  it('counts up to a limit when asked, saying when more rows match, with the same rows, as SQLite does', async () => {
    const query: HistoryQuery = { currencyCode: 'EUR', sortBy: 'amountMinor', page: 1, pageSize: 5 };
    const want = t.journal.history(query);
    expect(want.total).toBeGreaterThan(10);
    for (const countLimit of [10, want.total - 1]) {
      const capped = { ...query, countLimit };
      expect(t.journal.history(capped)).toEqual({ ...want, total: countLimit, totalCapped: true });
      expect(await queryHistoryPg(pool, capped)).toStrictEqual(t.journal.history(capped));
      // Over a time range the capped count is read in creation order (its own SQL): the same answer.
      const ranged = { ...capped, from: 0, to: Number.MAX_SAFE_INTEGER };
      expect(await queryHistoryPg(pool, ranged)).toStrictEqual(t.journal.history(ranged));
      expect((await queryHistoryPg(pool, ranged)).total).toBe(countLimit);
    }
    // At or under the limit the count is exact and unflagged.
    expect(t.journal.history({ ...query, countLimit: want.total })).toStrictEqual(want);
    expect(await queryHistoryPg(pool, { ...query, countLimit: want.total })).toStrictEqual(want);
    expect(await queryHistoryPg(pool, { ...query, batchId: 'no-such-batch', countLimit: 10 })).toStrictEqual(t.journal.history({ ...query, batchId: 'no-such-batch' }));
    // The option (the bench's) stands in for the query's limit.
    expect(await queryHistoryPg(pool, { ...query, countLimit: 1_000_000 }, { countLimit: 10 })).toEqual({ ...want, total: 10, totalCapped: true });
  });

  it('exports the same rows in the same order, across chunks and tied creation times', async () => {
    for (const [filter] of FILTERS.slice(0, 12)) {
      const got: PaymentRecord[] = [];
      for await (const row of iterateHistoryPg(pool, filter, 3)) got.push(row);
      expect(got, JSON.stringify(filter)).toEqual([...t.journal.iterateHistory(filter)]);
    }
  });

  it("gives every payment's timeline as SQLite does", async () => {
    const all = [...t.journal.iterateHistory({})];
    expect(all.length).toBeGreaterThan(100);
    for (const p of all) expect(await paymentTimelinePg(pool, p.kind, p.id)).toEqual(t.journal.timeline(p.kind, p.id));
  });

  it('refuses an amount or time beyond exact numbers rather than rounding it', async () => {
    await pool.query(`UPDATE payments SET amount_minor = 9007199254740993 WHERE id = 'po-1'`);
    try {
      await expect(queryHistoryPg(pool, { text: 'po-1', pageSize: 1000 })).rejects.toThrow(UnsafeIntegerError);
      await expect(queryHistoryPg(pool, { text: 'po-1', pageSize: 1000 })).rejects.toThrow(/amount_minor holds 9007199254740993/);
    } finally {
      await pool.query(`UPDATE payments SET amount_minor = $1 WHERE id = 'po-1'`, [t.journal.getPayment('payout', 'po-1')!.amountMinor]);
    }
  });

  it('copies into tables that have every column the SQLite journal has, and refuses one that lacks one', async () => {
    const other = new pg.Pool({ connectionString: await freshDatabase(inject('postgresUrl')), max: 2 });
    try {
      await migratePg(other);
      await other.query('ALTER TABLE payments DROP COLUMN not_found_reads CASCADE'); // with the views over payments
      await expect(copyJournalToPg(t.journal.db, other)).rejects.toThrow(/payments has no column not_found_reads/);
    } finally {
      await other.end();
    }
  });
});
