// Prints one closing line counting every test the runners executed: "tests: N passed, N failed".
// Arguments: the vitest JSON report, any number of Playwright JSON reports, then `--` and the names of
// the failed stages (if any). A report that does not exist (its stage did not run) counts nothing.
import { existsSync, readFileSync } from 'node:fs';

const args = process.argv.slice(2);
const dashes = args.indexOf('--');
const [vitestFile, ...playwrightFiles] = dashes < 0 ? args : args.slice(0, dashes);
const failedStages = dashes < 0 ? [] : args.slice(dashes + 1);
let passed = 0;
let failed = 0;
let skipped = 0;

if (vitestFile && existsSync(vitestFile)) {
  const v = JSON.parse(readFileSync(vitestFile, 'utf8'));
  passed += v.numPassedTests ?? 0;
  failed += v.numFailedTests ?? 0;
  skipped += (v.numPendingTests ?? 0) + (v.numTodoTests ?? 0);
}
for (const file of playwrightFiles.filter((f) => existsSync(f))) {
  const s = JSON.parse(readFileSync(file, 'utf8')).stats ?? {};
  passed += (s.expected ?? 0) + (s.flaky ?? 0);
  failed += s.unexpected ?? 0;
  skipped += s.skipped ?? 0;
}
if (failedStages.length) console.log(`failed stages: ${failedStages.join(', ')}`);
console.log(`tests: ${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
