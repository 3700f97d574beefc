// Mutation testing of the code that decides when money moves (issue 25): `npm run mutation`, or
// `npx tsx bench/mutation.ts` for the per-file figures. Killers: the unit tests and a fixed list of simulated
// histories (vitest.mutation.config.mjs). Reports: reports/mutation/ (gitignored).
// MUTATE=file.ts:10-20,other.ts narrows a run, MUTATION_REPORT_DIR moves its reports (the bench's smoke mode does both).
import { readFileSync } from 'node:fs';

const JOURNAL = 'main/store/sqlite/journal.ts';
/** The journal's payment state transitions and its retry rule; the rest of the journal is storage, not a rule. */
const JOURNAL_RULES = [
  'markSending', 'markRetrying', 'markUnknown', 'resendAllowed', 'markInterruptedSendsUnknown', 'markHeld', 'releaseHeld',
  'discardHeld', 'recordNotFound', 'markLocalFinal', 'cancelUnsent', 'recordObservation', 'retryableAttempts',
];

/**
 * `file:from-to` for each named method of a class in `file`, found by its name at two spaces of indent down to its
 * closing brace at the same indent. Looked up at each run: the journal is edited often and line numbers move.
 */
function methodRanges(file, names) {
  const lines = readFileSync(file, 'utf8').split('\n');
  return names.map((name) => {
    const start = lines.findIndex((l) => new RegExp(`^  (?:private |async )*${name}\\(`).test(l));
    if (start === -1) throw new Error(`stryker.config.mjs: no method ${name} in ${file}`);
    const end = lines.findIndex((l, i) => i > start && l === '  }');
    if (end === -1) throw new Error(`stryker.config.mjs: no end of ${name} in ${file}`);
    return `${file}:${start + 1}-${end + 1}`;
  });
}

export const MONEY_FILES = [
  'main/engine/payout-sender.ts',
  'main/engine/batch-runner.ts',
  'main/engine/status-poller.ts',
  'main/engine/approved-sends.ts',
  'main/approvals/gate.ts',
  'main/approvals/verify.ts',
  'main/journal/shared.ts',
  ...methodRanges(JOURNAL, JOURNAL_RULES),
];

const narrowed = process.env['MUTATE']?.split(',').filter(Boolean);
/** Where the reports go; a narrowed run (bench/mutation.ts --mutate) writes its own, not over the whole set's. */
const reports = process.env['MUTATION_REPORT_DIR'] ?? 'reports/mutation';

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  plugins: ['@stryker-mutator/vitest-runner'],
  vitest: { configFile: 'vitest.mutation.config.mjs' },
  mutate: narrowed ?? MONEY_FILES,
  // Each mutant runs only the tests that reached it in the first run.
  coverageAnalysis: 'perTest',
  // The machine's two cores are shared: one mutant at a time unless asked (STRYKER_CONCURRENCY=2).
  concurrency: Number(process.env['STRYKER_CONCURRENCY'] ?? 1),
  // Type errors of a mutant are not checked (no checker): such a mutant still runs, and usually dies.
  // A mutant that makes the tests hang is a timeout after the tests' own time × 1.5 + 10 s.
  timeoutMS: 10_000,
  // event-recorder: each mutant's result as a file the moment it is known (a long run's survivors can be read early).
  reporters: ['clear-text', 'progress', 'json', 'html', 'event-recorder'],
  eventReporter: { baseDir: `${reports}/events` },
  jsonReporter: { fileName: `${reports}/mutation.json` },
  htmlReporter: { fileName: `${reports}/mutation.html` },
  // --incremental keeps what it learnt here; the next run re-runs only mutants whose code or tests changed.
  incrementalFile: `${reports}/stryker-incremental.json`,
  thresholds: { high: 90, low: 80, break: null },
  tempDirName: '.tmp/stryker',
  ignorePatterns: ['.tmp', 'reports', 'out', 'dist', 'test-results', 'playwright-report', '.cache', 'bench/results'],
  cleanTempDir: true,
};
