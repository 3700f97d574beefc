// How the SQLite journal answers a history page over a large table. The app never runs ANALYZE, and SQLite's
// planner has no statistics to weigh a filter against a sort; PostgreSQL's has. So the choice is made here,
// from capped counts that cost a few milliseconds, in three cases (figures: bench/pg-history.ts at 1,000,000):
// - A text search matching few rows (at most `narrowText`): its row ids are read from the trigram index once,
//   and the page and the count are read from those rows alone.
// - A text search matching many rows: its matches are never gathered whole (a second at 1,000,000). In creation
//   order, rows are walked in chunks and each chunk asks the trigram index for the matches within its pk range
//   (pks follow creation order in practice, so a range holds little more than the chunk). Sorted otherwise,
//   the sort's index is walked and each row asks the trigram index (fast only when most rows match).
// - A sort by amount or status over a filter matching many rows: the sort's index is walked and the filter is
//   checked on each row, instead of sorting every match of the filter.
// The results are those of the plain query (`test/unit/journal/history-plan.test.ts` compares them); only the
// work differs.
import type Database from 'better-sqlite3';
import type { HistoryPage, HistoryQuery } from '../../journal/types';
import { toPayment, type PaymentRow } from '../rows';
import { cappedTotal, historyCountLimit, historyPaging, historyTerms, historyText, historyWhere } from '../history';
import { prepared } from './prepared';

export interface HistoryPlanLimits {
  /** A text matching at most this many rows is read by its row ids. */
  narrowText: number;
  /** A filter matching at least this many rows is sorted by walking the sort's index. */
  broadFilter: number;
  /** Rows of the first chunk of a walk in creation order; each later chunk doubles, up to `maxChunk`. */
  firstChunk: number;
  maxChunk: number;
  /** Sorted by amount, a text matching fewer rows than this is gathered whole; more, each row asks the trigram index. */
  gatherText: number;
}

export const HISTORY_PLAN_LIMITS: HistoryPlanLimits = { narrowText: 10_000, broadFilter: 10_000, firstChunk: 256, maxChunk: 8_192, gatherText: 100_000 };

/** The index that walks each sort key in order (pk is the last column of every index). */
const SORT_INDEX: Partial<Record<string, string>> = {
  created_at: 'payments_created',
  amount_minor: 'payments_amount',
  status: 'payments_status_pk',
};

type Param = string | number;
/** A filter's SQL; `lists`: it asks a column for one of several values. */
type Where = { sql: string; params: Param[]; lists?: boolean };

const and = (where: Where, condition: string): string => (where.sql ? `${where.sql} AND ${condition}` : `WHERE ${condition}`);
/** FTS5 query text: a quoted phrase matches any substring, case-insensitively. */
const phrase = (text: string): string => `"${text.replace(/"/g, '""')}"`;
// A pk is never bound to FTS5 for equality: a JavaScript number is bound as a REAL, and `rowid = ?` with a REAL made
// FTS5 ignore the constraint and return every match (SQLite 3.53, seen while building this). Ranges bound so are
// kept, and the row's own integer pk is compared within SQL.
const TEXT_IN_RANGE = 'SELECT rowid FROM payments_text WHERE payments_text MATCH ? AND rowid >= ? AND rowid <= ?';
const TEXT_OF_ROW = 'EXISTS (SELECT 1 FROM payments_text t WHERE t.payments_text MATCH ? AND t.rowid = p.pk)';

export function queryHistoryPlanned(db: Database.Database, query: HistoryQuery, limits: HistoryPlanLimits = HISTORY_PLAN_LIMITS): HistoryPage {
  const text = historyText(query.text);
  if (text.kind !== 'trigram') return filteredPage(db, query, historyWhere(query), limits);
  const terms = historyTerms(query);
  const lists = [terms.kinds, terms.statuses, terms.currencyCodes].some((values) => values.length > 1);
  const where = { ...historyWhere({ ...query, text: undefined }), lists };
  const match = phrase(text.text);
  const ids = prepared(db, 'SELECT rowid FROM payments_text WHERE payments_text MATCH ? LIMIT ?').pluck().all(match, limits.narrowText + 1) as number[];
  if (ids.length <= limits.narrowText) return fewMatchesPage(db, query, where, ids);
  return manyMatchesPage(db, query, where, match, limits);
}

/** A page over structured filters (and short texts, a LIKE): the plain query, or the sort's index walked. */
function filteredPage(db: Database.Database, query: HistoryQuery, where: Where, limits: HistoryPlanLimits): HistoryPage {
  const { pageSize, page, column, dir } = historyPaging(query);
  const limit = historyCountLimit(query);
  const counted = countRows(db, `FROM payments p ${where.sql}`, where.params, limit);
  let from = 'payments p';
  const sortIndex = SORT_INDEX[column];
  if (sortIndex && column !== 'created_at' && where.sql) {
    const broad = limit !== null && limit + 1 >= limits.broadFilter ? counted >= limits.broadFilter : countRows(db, `FROM payments p ${where.sql}`, where.params, limits.broadFilter - 1) >= limits.broadFilter;
    if (broad) from = `payments p INDEXED BY ${sortIndex}`;
  }
  const rows = prepared(db, `SELECT p.* FROM ${from} ${where.sql} ORDER BY p.${column} ${dir}, p.pk ${dir} LIMIT ? OFFSET ?`)
    .all(...where.params, pageSize, page * pageSize) as PaymentRow[];
  return { rows: rows.map(toPayment), ...cappedTotal(counted, limit), page, pageSize };
}

/** A text matching few rows: the page and the count read those rows by pk (NOT INDEXED keeps the planner there). */
function fewMatchesPage(db: Database.Database, query: HistoryQuery, where: Where, ids: number[]): HistoryPage {
  const { pageSize, page, column, dir } = historyPaging(query);
  const limit = historyCountLimit(query);
  const list = JSON.stringify(ids);
  const byIds = and(where, 'p.pk IN (SELECT value FROM json_each(?))');
  const rows = prepared(db, `SELECT p.* FROM payments p NOT INDEXED ${byIds} ORDER BY p.${column} ${dir}, p.pk ${dir} LIMIT ? OFFSET ?`)
    .all(...where.params, list, pageSize, page * pageSize) as PaymentRow[];
  const counted = where.sql ? (prepared(db, `SELECT COUNT(*) FROM payments p NOT INDEXED ${byIds}`).pluck().get(...where.params, list) as number) : ids.length;
  return { rows: rows.map(toPayment), ...cappedTotal(counted, limit), page, pageSize };
}

/**
 * A text matching many rows: its matches are not gathered whole unless they are fewer than `gatherText`.
 * With a filter matching few rows, those rows are read and the text is asked of them.
 */
function manyMatchesPage(db: Database.Database, query: HistoryQuery, where: Where, match: string, limits: HistoryPlanLimits): HistoryPage {
  const { pageSize, page, column, dir } = historyPaging(query);
  const limit = historyCountLimit(query);
  if (where.sql && countRows(db, `FROM payments p ${where.sql}`, where.params, limits.broadFilter - 1) < limits.broadFilter) {
    const filtered = prepared(db, `SELECT p.pk FROM payments p ${where.sql} ORDER BY p.pk`).pluck().all(...where.params) as number[];
    const matching = filtered.length === 0 ? new Set<number>() : textInRange(db, match, filtered[0]!, filtered[filtered.length - 1]!);
    return fewMatchesPage(db, query, where, filtered.filter((pk) => matching.has(pk)));
  }
  const skip = page * pageSize;
  let pks: number[];
  if (column === 'created_at' || column === 'status') {
    pks = take(matchesInOrder(db, where, column, match, dir, limits), skip, pageSize);
  } else {
    const gathered = prepared(db, 'SELECT rowid FROM payments_text WHERE payments_text MATCH ? LIMIT ?').pluck().all(match, limits.gatherText) as number[];
    const sortIndex = SORT_INDEX[column];
    const from = sortIndex ? `payments p INDEXED BY ${sortIndex}` : 'payments p';
    if (gathered.length < limits.gatherText) {
      const ids = new Set(gathered);
      pks = take(rowsInOrder(db, from, where, column, dir, limits, (pk) => ids.has(pk)), skip, pageSize);
    } else {
      pks = prepared(db, `SELECT p.pk FROM ${from} ${and(where, TEXT_OF_ROW)} ORDER BY p.${column} ${dir}, p.pk ${dir} LIMIT ? OFFSET ?`)
        .pluck().all(...where.params, match, pageSize, skip) as number[];
    }
  }
  let counted: number;
  if (!where.sql) {
    counted = limit === null
      ? (prepared(db, 'SELECT COUNT(*) FROM payments_text WHERE payments_text MATCH ?').pluck().get(match) as number)
      : (prepared(db, 'SELECT COUNT(*) FROM (SELECT 1 FROM payments_text WHERE payments_text MATCH ? LIMIT ?)').pluck().get(match, limit + 1) as number);
  } else {
    counted = take(matchesInOrder(db, { ...where, lists: false }, 'created_at', match, 'ASC', limits), 0, limit === null ? Number.MAX_SAFE_INTEGER : limit + 1).length;
  }
  return { rows: rowsByPk(db, pks), ...cappedTotal(counted, limit), page, pageSize };
}

/** The row ids the text matches between two pks. */
function textInRange(db: Database.Database, match: string, lo: number, hi: number): Set<number> {
  return new Set(prepared(db, TEXT_IN_RANGE).pluck().all(match, lo, hi) as number[]);
}

/**
 * The pks of rows matching `where` and the text, ordered by a column whose rows of one value follow pk order
 * (creation time, or status), then pk. Read in chunks along the column's index: each chunk asks the trigram index
 * once for its matches between the chunk's least and greatest pk.
 */
function* matchesInOrder(db: Database.Database, where: Where, column: 'created_at' | 'status', match: string, dir: 'ASC' | 'DESC', limits: HistoryPlanLimits): Generator<number> {
  // A filter on one value walks its own index in this order (status, created); on several values it would sort
  // all its rows for each chunk, so the order's index is walked instead and the filter checked on each row.
  const from = where.lists ? `payments p INDEXED BY ${SORT_INDEX[column]!}` : 'payments p';
  for (const chunk of chunksInOrder(db, from, where, column, dir, limits)) {
    let lo = chunk[0]!;
    let hi = lo;
    for (const pk of chunk) {
      if (pk < lo) lo = pk;
      if (pk > hi) hi = pk;
    }
    const matching = textInRange(db, match, lo, hi);
    for (const pk of chunk) if (matching.has(pk)) yield pk;
  }
}

/** The pks of rows matching `where` and `keep`, in the column's order, then pk. */
function* rowsInOrder(db: Database.Database, from: string, where: Where, column: string, dir: 'ASC' | 'DESC', limits: HistoryPlanLimits, keep: (pk: number) => boolean): Generator<number> {
  for (const chunk of chunksInOrder(db, from, where, column, dir, limits)) for (const pk of chunk) if (keep(pk)) yield pk;
}

/** Rows matching `where` in the column's order, then pk, as chunks of pks: the first of `firstChunk`, each next twice as long up to `maxChunk`. */
function* chunksInOrder(db: Database.Database, from: string, where: Where, column: string, dir: 'ASC' | 'DESC', limits: HistoryPlanLimits): Generator<number[]> {
  const after = dir === 'DESC' ? '<' : '>';
  const order = `ORDER BY p.${column} ${dir}, p.pk ${dir} LIMIT ?`;
  const first = prepared(db, `SELECT p.pk, p.${column} FROM ${from} ${where.sql} ${order}`).raw();
  const next = prepared(db, `SELECT p.pk, p.${column} FROM ${from} ${and(where, `(p.${column}, p.pk) ${after} (?, ?)`)} ${order}`).raw();
  let size = limits.firstChunk;
  let last: [number, Param] | null = null;
  for (;;) {
    const chunk = (last ? next.all(...where.params, last[1], last[0], size) : first.all(...where.params, size)) as [number, Param][];
    if (chunk.length === 0) return;
    yield chunk.map(([pk]) => pk);
    if (chunk.length < size) return;
    last = chunk[chunk.length - 1]!;
    size = Math.min(size * 2, limits.maxChunk);
  }
}

function take(pks: Generator<number>, skip: number, count: number): number[] {
  const out: number[] = [];
  if (count <= 0) return out;
  let seen = 0;
  for (const pk of pks) {
    if (seen++ < skip) continue;
    out.push(pk);
    if (out.length >= count) break;
  }
  return out;
}

/** Rows by pk, in the order of the pks given. */
function rowsByPk(db: Database.Database, pks: number[]): HistoryPage['rows'] {
  if (pks.length === 0) return [];
  const rows = prepared(db, 'SELECT * FROM payments WHERE pk IN (SELECT value FROM json_each(?))').all(JSON.stringify(pks)) as (PaymentRow & { pk: number })[];
  const byPk = new Map(rows.map((r) => [r.pk, r]));
  return pks.map((pk) => toPayment(byPk.get(pk)!));
}

/** Rows matching, counted up to limit + 1 (null: all). */
function countRows(db: Database.Database, fromWhere: string, params: Param[], limit: number | null): number {
  return limit === null
    ? (prepared(db, `SELECT COUNT(*) ${fromWhere}`).pluck().get(...params) as number)
    : (prepared(db, `SELECT COUNT(*) FROM (SELECT 1 ${fromWhere} LIMIT ?)`).pluck().get(...params, limit + 1) as number);
}
