// The History screen's total and search rules, apart from the store so they can be checked without a desk.
import { MIN_HISTORY_SEARCH } from '../../contract/limits';

/** The table's row count: `capped` when main counted only some way past the pages read ("10,000+"). */
export interface TableTotal {
  total: number;
  capped: boolean;
}

/**
 * The total after an answer. A capped total grows as deeper pages are read (each counts further past itself);
 * a shallower page's smaller capped count (a refresh of the first page) must not shrink the table under the
 * reader. An exact total, or the first page of new filters (`fresh`), is taken as it is.
 */
export function nextTotal(shown: TableTotal, answer: TableTotal, fresh: boolean): TableTotal {
  if (!fresh && answer.capped && shown.capped && answer.total < shown.total) return shown;
  return answer;
}

/** The search the screen asks for: none while the text is shorter than MIN_HISTORY_SEARCH (contract/limits.ts). */
export function appliedSearch(search: string | null | undefined): string | undefined {
  const text = search?.trim();
  return text && text.length >= MIN_HISTORY_SEARCH ? text : undefined;
}
