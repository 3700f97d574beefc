// How the SQLite journal answers a history page over a large table. The app never runs ANALYZE, and SQLite's
// planner has no statistics to weigh a filter against a sort or a text; PostgreSQL's has. So the choice is made
// here, from capped counts that cost a few milliseconds (figures: bench/pg-history.ts at 1,000,000):
// - A text matching few rows (at most `narrowText`): its row ids are read from the trigram index once, and the
//   page and the count read those rows alone.
// - A text matching many rows is never gathered whole (a second at 1,000,000). A row is asked whether it holds the
//   text by `rowHoldsText` (a LIKE, the trigram index only for rows with other than ASCII), a few microseconds.
//   In creation or status order, the rows are walked in chunks along the order's index, and each chunk asks the
//   trigram index once for the matches in its pk range (pks follow creation order, so a range holds little more
//   than the chunk). By amount, the amount index is walked, asking each row. The count: the trigram index's own,
//   capped; with a filter too, the faster of two walks (countBoth); with a filter matching few rows, those rows.
// - A sort by amount or status over a filter matching many rows walks the sort's index and checks the filter on
//   each row, instead of sorting every match of the filter.
// The results are the plain query's (`test/unit/journal/history-plan.test.ts` compares them with limits small
// enough to take every way); only the work differs.
import type Database from 'better-sqlite3';
import type { HistoryFilter, HistoryPage, HistoryQuery, PaymentRecord } from '../../journal/types';
import { toPayment, type PaymentRow } from '../rows';
import { cappedTotal, historyCountLimit, historyPaging, historyTerms, historyText, historyWhere, iterateHistory, likeEscape } from '../history';
import { prepared } from './prepared';

export interface HistoryPlanLimits {
  /** A text matching at most this many rows is read by its row ids. */
  narrowText: number;
  /** A filter matching fewer rows than this, with a text matching many, is read whole and each row asked. */
  narrowFilter: number;
  /** A filter matching at least this many rows is sorted by walking the sort's index. */
  broadFilter: number;
  /** Rows of the first chunk of a walk; each later chunk doubles, up to `maxChunk`. */
  firstChunk: number;
  maxChunk: number;
  /**
   * In creation or status order, a chunk asks each of its rows instead of the index's matches in its pk range when
   * that range would hold more than this many matches per row of the chunk.
   */
  rangePerRow: number;
  /** Which walk counts a text and a filter that both match many rows (countBoth): the faster (the app), or one alone (tests). */
  countBy?: 'faster' | 'text' | 'filter';
}

export const HISTORY_PLAN_LIMITS: HistoryPlanLimits = {
  narrowText: 10_000, narrowFilter: 2_000, broadFilter: 10_000, firstChunk: 256, maxChunk: 8_192, rangePerRow: 25,
};

/** The index that walks each sort key in order (pk is the last column of every index). */
const SORT_INDEX: Partial<Record<string, string>> = {
  created_at: 'payments_created',
  amount_minor: 'payments_amount',
  status: 'payments_status_pk',
};

type Param = string | number;
/** A filter's SQL; `lists`: it asks columns for one of several values, and none for one value (see matchesInOrder). */
type Where = { sql: string; params: Param[]; lists?: boolean };

const and = (where: Where, condition: string): string => (where.sql ? `${where.sql} AND ${condition}` : `WHERE ${condition}`);
/** FTS5 query text: a quoted phrase matches any substring, case-insensitively. */
const phrase = (text: string): string => `"${text.replace(/"/g, '""')}"`;
// Pks bound to FTS5 are cast to INTEGER. A JavaScript number is bound as a REAL, and FTS5 (SQLite 3.53, seen while
// building this) then ignores `rowid = ?` (every match comes back) and answers `rowid >= ? AND rowid <= ?` right but
// by reading every match: the walks below became 15-30 times slower, which only bench/pg-history.ts shows.
const TEXT_IN_RANGE = 'SELECT rowid FROM payments_text WHERE payments_text MATCH ? AND rowid >= CAST(? AS INTEGER) AND rowid <= CAST(? AS INTEGER)';
const TEXT_COLUMNS = ['p.id', 'p.account_name', 'p.account_number', 'p.email_address', 'p.reference'];

/**
 * Whether row `p` holds the text, exactly as the trigram index answers, at a LIKE's cost for most rows. The index
 * folds case over Unicode; LIKE folds only ASCII letters. So a LIKE that matches proves a match (equal characters
 * fold alike), and a LIKE that fails proves none when the text and the row's fields are all ASCII (then the two fold
 * alike). Only a row with other characters, or any row for a text with other characters (the Kelvin sign folds to
 * "k"), is asked of the trigram index, by its own integer pk.
 */
function rowHoldsText(text: string, match: string): Where {
  const pattern = `%${likeEscape(text)}%`;
  const like = TEXT_COLUMNS.map((c) => `${c} LIKE ? ESCAPE '\\'`).join(' OR ');
  const index = 'EXISTS (SELECT 1 FROM payments_text t WHERE t.payments_text MATCH ? AND t.rowid = p.pk)';
  // octet_length counts UTF-8 bytes, length characters: they differ exactly when a field has a character past ASCII.
  const wide = TEXT_COLUMNS.map((c) => `length(${c}) <> octet_length(${c})`).join(' OR ');
  const ascii = [...text].every((c) => c.charCodeAt(0) < 0x80);
  return {
    sql: `(${like} OR ${ascii ? `((${wide}) AND ${index})` : index})`,
    params: [...TEXT_COLUMNS.map(() => pattern), match],
  };
}

/** A text matching many rows: as typed, as the trigram index's query, and the share of rows it matches (estimated). */
interface Search {
  text: string;
  match: string;
  share: number;
}

const both = (a: Where, b: Where): Where => ({ sql: and(a, b.sql), params: [...a.params, ...b.params], lists: a.lists });

export function queryHistoryPlanned(db: Database.Database, query: HistoryQuery, limits: HistoryPlanLimits = HISTORY_PLAN_LIMITS): HistoryPage {
  const text = historyText(query.text);
  if (text.kind !== 'trigram') return filteredPage(db, query, historyWhere(query), limits);
  const where = filterWithoutText(query);
  const match = phrase(text.text);
  const ids = textIds(db, match, limits);
  if (ids.length <= limits.narrowText) return fewMatchesPage(db, query, where, ids);
  // The share of rows holding the text, from the pk of its last match read (the index answers in pk order).
  const share = ids.length / Math.max(ids.length, ids[ids.length - 1]!);
  return manyMatchesPage(db, query, where, { text: text.text, match, share }, limits);
}

/**
 * Every row matching a filter in creation order, streamed (exports), as `iterateHistory` (store/history.ts) gives
 * them. That one gathers a text's matches before its first row (a second's stall at 1,000,000 for a common text);
 * here a text matching many rows is asked of each row walked instead, which finds one every hundred rows at worst.
 */
export function* iterateHistoryPlanned(db: Database.Database, filter: HistoryFilter, limits: HistoryPlanLimits = HISTORY_PLAN_LIMITS): Generator<PaymentRecord> {
  const text = historyText(filter.text);
  const match = text.kind === 'trigram' ? phrase(text.text) : '';
  if (text.kind !== 'trigram' || textIds(db, match, limits).length <= limits.narrowText) {
    yield* iterateHistory(db, filter);
    return;
  }
  const where = filterWithoutText(filter);
  const checked = both(where, rowHoldsText(text.text, match));
  const from = where.lists ? 'payments p INDEXED BY payments_created' : 'payments p'; // as in matchesInOrder
  // A walk prepares its own statement: one being iterated is busy until the walk ends (prepared.ts).
  const rows = db.prepare(`SELECT p.* FROM ${from} ${checked.sql} ORDER BY p.created_at, p.pk`).iterate(...checked.params) as IterableIterator<PaymentRow>;
  for (const row of rows) yield toPayment(row);
}

/** The text's first matches in pk order, one more than `narrowText` at most (so more means many). */
function textIds(db: Database.Database, match: string, limits: HistoryPlanLimits): number[] {
  return prepared(db, 'SELECT rowid FROM payments_text WHERE payments_text MATCH ? LIMIT ?').pluck().all(match, limits.narrowText + 1) as number[];
}

/** A filter's conditions but its text, marked `lists` when it asks columns only for several values. */
function filterWithoutText(filter: HistoryFilter): Where {
  const terms = historyTerms(filter);
  const single = [terms.kinds, terms.statuses, terms.currencyCodes].some((values) => values.length === 1) || terms.batchId !== null;
  const lists = !single && [terms.kinds, terms.statuses, terms.currencyCodes].some((values) => values.length > 1);
  return { ...historyWhere({ ...filter, text: undefined }), lists };
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

/** A text matching many rows: never gathered whole. */
function manyMatchesPage(db: Database.Database, query: HistoryQuery, where: Where, search: Search, limits: HistoryPlanLimits): HistoryPage {
  const { match } = search;
  const holds = rowHoldsText(search.text, match);
  if (where.sql && countRows(db, `FROM payments p ${where.sql}`, where.params, limits.narrowFilter - 1) < limits.narrowFilter) {
    return filteredPage(db, query, both(where, holds), limits);
  }
  const { pageSize, page, column, dir } = historyPaging(query);
  const limit = historyCountLimit(query);
  const skip = page * pageSize;
  let pks: number[];
  if (column === 'created_at' || column === 'status') {
    pks = take(matchesInOrder(db, where, column, search, holds, dir, limits), skip, pageSize);
  } else {
    const sortIndex = SORT_INDEX[column];
    const checked = both(where, holds);
    pks = prepared(db, `SELECT p.pk FROM payments p ${sortIndex ? `INDEXED BY ${sortIndex}` : ''} ${checked.sql} ORDER BY p.${column} ${dir}, p.pk ${dir} LIMIT ? OFFSET ?`)
      .pluck().all(...checked.params, pageSize, skip) as number[];
  }
  let counted: number;
  if (!where.sql) {
    counted = limit === null
      ? (prepared(db, 'SELECT COUNT(*) FROM payments_text WHERE payments_text MATCH ?').pluck().get(match) as number)
      : (prepared(db, 'SELECT COUNT(*) FROM (SELECT 1 FROM payments_text WHERE payments_text MATCH ? LIMIT ?)').pluck().get(match, limit + 1) as number);
  } else {
    counted = countBoth(db, where, holds, match, limit === null ? Number.POSITIVE_INFINITY : limit + 1, limits);
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
 * once for its matches between the chunk's least and greatest pk, or, when that range is far wider than the chunk,
 * asks each of its rows (rowHoldsText).
 */
function* matchesInOrder(db: Database.Database, where: Where, column: 'created_at' | 'status', search: Search, holds: Where, dir: 'ASC' | 'DESC', limits: HistoryPlanLimits): Generator<number> {
  // A filter the planner can read in this order from an index of its own (one status, currency or kind) walks that
  // index; one asking only for several values would sort all its rows for each chunk, so the order's index is walked.
  const from = where.lists ? `payments p INDEXED BY ${SORT_INDEX[column]!}` : 'payments p';
  const holding = prepared(db, `SELECT p.pk FROM payments p WHERE p.pk IN (SELECT value FROM json_each(?)) AND ${holds.sql}`).pluck();
  for (const rows of chunksInOrder(db, from, where, column, dir, limits)) {
    const chunk = rows.map(([pk]) => pk);
    let lo = chunk[0]!;
    let hi = lo;
    for (const pk of chunk) {
      if (pk < lo) lo = pk;
      if (pk > hi) hi = pk;
    }
    // The index reads every match in the range (about 0.2 µs each); asking each row costs about 5 µs. A filter
    // whose rows lie far apart (a currency and a status: 1 row in 70) makes the range far wider than the chunk.
    const found = (hi - lo + 1) * search.share > chunk.length * limits.rangePerRow
      ? new Set(holding.all(JSON.stringify(chunk), ...holds.params) as number[])
      : textInRange(db, search.match, lo, hi);
    for (const pk of chunk) if (found.has(pk)) yield pk;
  }
}

/**
 * Rows matching both a filter and a text that each match many rows, counted up to `upTo`, newest first. Two walks
 * give the same count: the filter's rows in creation order, each asked whether it holds the text, and the text's
 * matches by pk range, each checked against the filter. Which is faster depends on how rare each is and where the
 * matches lie (a quarter long past comes late to the second), which no count tells beforehand. So each takes a
 * first step, and then the one that has found more per millisecond steps next (counting one find more than it
 * has, so that a walk which found nothing yet is tried again once the other slows).
 */
function countBoth(db: Database.Database, where: Where, holds: Where, match: string, upTo: number, limits: HistoryPlanLimits): number {
  const walks = [{ spent: 0, found: 0 }, { spent: 0, found: 0 }];
  const steps = [
    textMatchesByPk(db, where, match, limits, () => upTo - walks[0]!.found),
    filterRowsHolding(db, where, holds, limits, () => upTo - walks[1]!.found),
  ];
  const rate = (w: { spent: number; found: number }): number => (w.found + 1) / (w.spent + 0.01);
  const only = limits.countBy === 'text' ? 0 : limits.countBy === 'filter' ? 1 : undefined;
  for (let n = 0; ; n++) {
    const i = only ?? (n < 2 ? n : rate(walks[0]!) >= rate(walks[1]!) ? 0 : 1);
    const turn = walks[i]!;
    const started = performance.now();
    const step = steps[i]!.next();
    turn.spent += performance.now() - started;
    if (step.done) return Math.min(turn.found, upTo);
    turn.found += step.value;
    if (turn.found >= upTo) return upTo;
  }
}

/**
 * Rows matching `where` in creation order, newest first, a chunk at a time: how many of each chunk hold the text.
 * A chunk is no longer than what is still `wanted` (every row might hold it).
 */
function* filterRowsHolding(db: Database.Database, where: Where, holds: Where, limits: HistoryPlanLimits, wanted: () => number): Generator<number> {
  const from = where.lists ? 'payments p INDEXED BY payments_created' : 'payments p'; // as in matchesInOrder
  for (const chunk of chunksInOrder(db, from, where, 'created_at', 'DESC', limits, { also: holds, cap: wanted })) {
    let found = 0;
    for (const row of chunk) if (row[2]) found++;
    yield found;
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

/**
 * Rows matching `where` in the column's order, then pk, a chunk at a time, each row as [pk, the column's value,
 * `also`'s value when given]: the first chunk of `firstChunk` rows, each next twice as long up to `maxChunk`, and
 * none longer than `cap` says.
 */
function* chunksInOrder(
  db: Database.Database, from: string, where: Where, column: string, dir: 'ASC' | 'DESC', limits: HistoryPlanLimits,
  options: { also?: Where; cap?: () => number } = {},
): Generator<[number, Param, unknown?][]> {
  const after = dir === 'DESC' ? '<' : '>';
  const select = `SELECT p.pk, p.${column}${options.also ? `, ${options.also.sql}` : ''} FROM ${from}`;
  const order = `ORDER BY p.${column} ${dir}, p.pk ${dir} LIMIT ?`;
  const first = prepared(db, `${select} ${where.sql} ${order}`).raw();
  const next = prepared(db, `${select} ${and(where, `(p.${column}, p.pk) ${after} (?, ?)`)} ${order}`).raw();
  const params = [...(options.also?.params ?? []), ...where.params];
  let size = limits.firstChunk;
  let last: [number, Param] | null = null;
  for (;;) {
    const rows = Math.max(1, Math.min(size, options.cap?.() ?? size));
    const chunk = (last ? next.all(...params, last[1], last[0], rows) : first.all(...params, rows)) as [number, Param, unknown?][];
    if (chunk.length === 0) return;
    yield chunk;
    if (chunk.length < rows) return;
    const end = chunk[chunk.length - 1]!;
    last = [end[0], end[1]];
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
