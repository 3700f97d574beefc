// The sizes the contract promises, in one place: main's schemas check them, its argument guard and
// the CSV reader derive from them, and the screens can say them before a person hits them.

/**
 * The longest list any method takes (the payout ids of a retry, the confirmed rows of a 100,000-row batch).
 * The argument guard derives its value count from it.
 */
export const MAX_LIST_ITEMS = 100_000;

/** The largest CSV file a batch is read from. */
export const MAX_CSV_BYTES = 50 * 1024 * 1024;

/** The most rows one page of a list or of the history holds. */
export const MAX_PAGE_SIZE = 1000;

/**
 * The shortest text the History screen searches for. From 3 characters a search is served by the trigram
 * indexes of both back ends; a shorter one can only be found by reading every payment (half a second over
 * 1,000,000 on PostgreSQL, bench/pg-history.ts) and matches too many to be of use, so the screen asks for
 * more instead. The journals and the CLI still search shorter texts (a scan), as before.
 */
export const MIN_HISTORY_SEARCH = 3;

/** Rows the History screen asks for at a time: about five screenfuls, so the first answer is small and quick and scrolling rarely waits. */
export const HISTORY_PAGE_SIZE = 100;
