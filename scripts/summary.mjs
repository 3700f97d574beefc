// Prints one closing line counting every test the runners executed: "tests: N passed, N failed".
// Arguments: any number of vitest and Playwright JSON reports, then `--` and the names of
// the failed stages (if any). A report that does not exist (its stage did not run) counts nothing.
import { existsSync, readFileSync } from 'node:fs';

const args = process.argv.slice(2);
const dashes = args.indexOf('--');
const reports = dashes < 0 ? args : args.slice(0, dashes);
const failedStages = dashes < 0 ? [] : args.slice(dashes + 1);
let passed = 0;
let failed = 0;
let skipped = 0;
let flaky = 0;

// Each report is vitest's JSON (numPassedTests…) or Playwright's (stats), told apart by their shape.
for (const file of reports.filter((f) => existsSync(f))) {
  const report = JSON.parse(readFileSync(file, 'utf8'));
  if (report.stats) {
    const s = report.stats;
    passed += (s.expected ?? 0) + (s.flaky ?? 0);
    flaky += s.flaky ?? 0;
    failed += s.unexpected ?? 0;
    skipped += s.skipped ?? 0;
  } else {
    passed += report.numPassedTests ?? 0;
    failed += report.numFailedTests ?? 0;
    skipped += (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
  }
}
if (failedStages.length) console.log(`failed stages: ${failedStages.join(', ')}`);
if (flaky) console.log(`flaky: ${flaky} end-to-end test(s) failed once and passed when run again (see reports/e2e.json)`);
console.log(`tests: ${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
