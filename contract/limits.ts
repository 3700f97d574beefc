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
