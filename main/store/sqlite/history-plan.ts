// How the SQLite journal answers a history page over a large table. The app never runs ANALYZE, and SQLite's
// planner has no statistics to weigh a filter against a sort or a text; PostgreSQL's has. So the choice is made
// here, from capped counts and samples that cost a few milliseconds (figures: bench/pg-history.ts at 1,000,000):
// - A text matching few rows (at most `narrowText`): its row ids are read from the trigram index once, and the
//   page and the count read those rows alone. So is a text matching many rows over a filter matching few.
// - A text matching many rows is never gathered whole (a second at 1,000,000), unless a sample says it matches
//   fewer than `gatherText` and the page is sorted by amount. In creation or status order, the rows are walked in
//   chunks along the order's index, and each chunk asks the trigram index once for the matches in its pk range
//   (pks follow creation order, so a range holds little more than the chunk). By amount, the gathered matches are
//   looked up as the amount index is walked, or, for a text in most rows, each row walked asks the trigram index.
//   The count: the trigram index's own, capped; with a filter too, the faster of two walks (countBoth).
// - A sort by amount or status over a filter matching many rows walks the sort's index and checks the filter on
//   each row, instead of sorting every match of the filter.
// The results are the plain query's (`test/unit/journal/history-plan.test.ts` compares them with limits small
// enough to take every way); only the work differs.
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
  /**
   * Sorted by amount, a text estimated to match fewer rows than this is gathered whole (if it turns out to match
   * twice as many, the gathering stops); more, each row walked asks the trigram index. The estimate counts the
   * matches in `samples` windows of `sampleRows` pks spread over the table.
   */
  gatherText: number;
  samples: number;
  sampleRows: number;
  /** Which walk counts a text and a filter that both match many rows (countBoth): the faster (the app), or one alone (tests). */
  countBy?: 'faster' | 'text' | 'filter';
}

export const HISTORY_PLAN_LIMITS: HistoryPlanLimits = {
  narrowText: 10_000, broadFilter: 10_000, firstChunk: 256, maxChunk: 8_192, gatherText: 250_000, samples: 8, sampleRows: 1_000,
};

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
// Pks bound to FTS5 are cast to INTEGER. A JavaScript number is bound as a REAL, and FTS5 (SQLite 3.53, seen while
// building this) then ignores `rowid = ?` (every match comes back) and answers `rowid >= ? AND rowid <= ?` right but
// by reading every match: the walks below became 15-30 times slower, which only bench/pg-history.ts shows.
const TEXT_IN_RANGE = 'SELECT rowid FROM payments_text WHERE payments_text MATCH ? AND rowid >= CAST(? AS INTEGER) AND rowid <= CAST(? AS INTEGER)';
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
    const sortIndex = SORT_INDEX[column];
    const from = sortIndex ? `payments p INDEXED BY ${sortIndex}` : 'payments p';
    // Gathering costs each match; asking row by row costs each row walked, more the rarer the matches.
    const gathered = estimatedMatches(db, match, limits) < limits.gatherText
      ? prepared(db, 'SELECT rowid FROM payments_text WHERE payments_text MATCH ? LIMIT ?').pluck().all(match, 2 * limits.gatherText) as number[]
      : null;
    if (gathered && gathered.length < 2 * limits.gatherText) {
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
    counted = countBoth(db, where, match, limit === null ? Number.POSITIVE_INFINITY : limit + 1, limits);
  }
  return { rows: rowsByPk(db, pks), ...cappedTotal(counted, limit), page, pageSize };
}

/** The text's matches over the whole table, estimated from `samples` evenly spread windows of `sampleRows` pks. */
function estimatedMatches(db: Database.Database, match: string, limits: HistoryPlanLimits): number {
  const top = (prepared(db, 'SELECT MAX(pk) FROM payments').pluck().get() as number | null) ?? 0;
  const windows = Math.max(1, Math.min(limits.samples, Math.floor(top / limits.sampleRows)));
  const count = prepared(db, `SELECT COUNT(*) FROM (${TEXT_IN_RANGE})`).pluck();
  let seen = 0;
  let matched = 0;
  for (let w = 0; w < windows; w++) {
    const lo = Math.floor((top * w) / windows) + 1;
    const hi = Math.min(top, lo + limits.sampleRows - 1);
    seen += hi - lo + 1;
    matched += count.get(match, lo, hi) as number;
  }
  return seen === 0 ? 0 : (matched / seen) * top;
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
  for (const chunk of matchingChunks(db, where, column, match, dir, limits)) yield* chunk.matching;
}

/** matchesInOrder a chunk at a time: the rows of `where` read and those the text matches. */
function* matchingChunks(db: Database.Database, where: Where, column: 'created_at' | 'status', match: string, dir: 'ASC' | 'DESC', limits: HistoryPlanLimits): Generator<{ read: number; matching: number[] }> {
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
    const inRange = textInRange(db, match, lo, hi);
    yield { read: chunk.length, matching: chunk.filter((pk) => inRange.has(pk)) };
  }
}

/**
 * Rows matching both a filter and a text that each match many rows, counted up to `upTo`, newest first. Two walks
 * give the same count: the filter's rows in creation order asking the text a chunk at a time, and the text's matches
 * by pk range checking the filter on each. Which is faster depends on where the matches lie (a quarter long past
 * comes late to the second, a currency's rows cost the first a look-up each), which no count tells beforehand. So
 * each takes a first step, and then the one that has found more per millisecond steps next (counting one find more
 * than it has, so that a walk which found nothing yet is tried again once the other slows).
 */
function countBoth(db: Database.Database, where: Where, match: string, upTo: number, limits: HistoryPlanLimits): number {
  const byFilter = (function* (): Generator<number> {
    for (const chunk of matchingChunks(db, { ...where, lists: false }, 'created_at', match, 'DESC', limits)) yield chunk.matching.length;
  })();
  const byText = textMatchesByPk(db, where, match, limits, () => upTo - walks[0]!.found);
  const walks = [byText, byFilter].map((walk) => ({ walk, spent: 0, found: 0 }));
  const rate = (w: (typeof walks)[number]): number => (w.found + 1) / (w.spent + 0.01);
  const only = limits.countBy === 'text' ? walks[0] : limits.countBy === 'filter' ? walks[1] : undefined;
  for (let steps = 0; ; steps++) {
    const turn = only ?? (steps < walks.length ? walks[steps]! : rate(walks[0]!) >= rate(walks[1]!) ? walks[0]! : walks[1]!);
    const started = performance.now();
    const step = turn.walk.next();
    turn.spent += performance.now() - started;
    if (step.done) return Math.min(turn.found, upTo);
    turn.found += step.value;
    if (turn.found >= upTo) return upTo;
  }
}

/**
 * Rows matching `where` and the text, counted by ranges of pks from the greatest down, each range's count yielded;
 * a range stops counting at what is still `wanted`.
 */
function* textMatchesByPk(db: Database.Database, where: Where, match: string, limits: HistoryPlanLimits, wanted: () => number): Generator<number> {
  const inRange = prepared(db, `SELECT COUNT(*) FROM (SELECT 1 FROM payments_text t CROSS JOIN payments p ON p.pk = t.rowid
    ${and(where, 't.payments_text MATCH ? AND t.rowid >= CAST(? AS INTEGER) AND t.rowid <= CAST(? AS INTEGER)')} LIMIT ?)`).pluck();
  let hi = (prepared(db, 'SELECT MAX(pk) FROM payments').pluck().get() as number | null) ?? 0;
  let span = limits.firstChunk * 16;
  while (hi >= 1) {
    const lo = Math.max(1, hi - span + 1);
    const left = wanted();
    yield inRange.get(...where.params, match, lo, hi, Number.isFinite(left) ? left : -1) as number;
    hi = lo - 1;
    span = Math.min(span * 2, limits.maxChunk * 16);
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
