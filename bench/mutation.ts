// Benchmark: how much of the code that decides when money moves is held by a test (issue 25). Runs Stryker over the
// money files (stryker.config.mjs: the engine's sender, batch runner, poller and approved sends, the approval gate
// and its verification, the journal's shared rules and the SQLite journal's state transitions and retry rule), then
// reads the JSON report (mutation-testing-report-schema) and prints one line per file and the total score.
// Target: a mutation score of at least 90 % (killed and timed-out mutants over all that ran or had no test).
//   npx tsx bench/mutation.ts                      the whole set (about an hour on the 2-core machine)
//   npx tsx bench/mutation.ts --concurrency 2      two mutants at a time (the machine is shared: 1 by default)
//   npx tsx bench/mutation.ts --incremental        reuses the last run's results for mutants whose code and tests are unchanged
//   npx tsx bench/mutation.ts --mutate main/journal/shared.ts:39-45 --test-files a.test.ts,b.ts --sim-steps 10
//                                                  one small range against a few test files (the smoke run)
//   npx tsx bench/mutation.ts --report-only [--report file.json]   prints a report's figures without running Stryker
//   --survivors lists each surviving and uncovered mutant (file:line, mutator, replacement).
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    mutate: { type: 'string' },
    /** Only these test files face the mutants (comma-separated globs); all the killers by default. */
    'test-files': { type: 'string' },
    concurrency: { type: 'string', default: '1' },
    incremental: { type: 'boolean', default: false },
    'report-only': { type: 'boolean', default: false },
    /** With --report-only: the JSON report to read (default: the one this script's run writes). */
    report: { type: 'string' },
    survivors: { type: 'boolean', default: false },
    /** Steps of each simulated history the mutants face (fewer only to prove the bench runs). */
    'sim-steps': { type: 'string' },
  },
});

const TARGET = 90;
// A narrowed run writes a report of its own, so it never stands in for the whole set's.
const REPORT_DIR = values.mutate ? 'reports/mutation-narrowed' : 'reports/mutation';
const REPORT = values.report ?? `${REPORT_DIR}/mutation.json`;

type Status = 'Killed' | 'Survived' | 'NoCoverage' | 'Timeout' | 'CompileError' | 'RuntimeError' | 'Ignored' | 'Pending';
interface Mutant {
  mutatorName: string;
  replacement?: string;
  status: Status;
  location: { start: { line: number; column: number } };
}
interface Report {
  files: Record<string, { mutants: Mutant[] }>;
}

function runStryker(): Promise<number> {
  const args = ['node_modules/@stryker-mutator/core/bin/stryker.js', 'run', '--concurrency', values.concurrency];
  if (values.incremental) args.push('--incremental');
  if (values['test-files']) args.push('--testFiles', values['test-files']);
  const env = {
    ...process.env,
    MUTATION_REPORT_DIR: REPORT_DIR,
    ...(values.mutate ? { MUTATE: values.mutate } : {}),
    ...(values['sim-steps'] ? { MUTATION_SIM_STEPS: values['sim-steps'] } : {}),
  };
  return new Promise((resolve, reject) => {
    // Stryker's own lines go to stderr: this script's stdout is its figures.
    const child = spawn(process.execPath, args, { stdio: ['ignore', process.stderr, process.stderr], env });
    child.on('error', reject);
    child.on('close', (code) => resolve(code ?? 1));
  });
}

interface Tally { killed: number; survived: number; timeout: number; noCoverage: number; errors: number }

const tally = (mutants: Mutant[]): Tally => ({
  killed: mutants.filter((m) => m.status === 'Killed').length,
  survived: mutants.filter((m) => m.status === 'Survived').length,
  timeout: mutants.filter((m) => m.status === 'Timeout').length,
  noCoverage: mutants.filter((m) => m.status === 'NoCoverage').length,
  // A mutant that does not compile or crashes the runner is not counted either way (Stryker's own rule).
  errors: mutants.filter((m) => m.status === 'CompileError' || m.status === 'RuntimeError').length,
});

/** Detected over valid, in tenths of a percent (an integer, so the comparison with the target is exact). */
function scorePermille(t: Tally): number | null {
  const valid = t.killed + t.timeout + t.survived + t.noCoverage;
  return valid === 0 ? null : Math.floor(((t.killed + t.timeout) * 1000) / valid);
}

const percent = (permille: number | null) => (permille === null ? '   n/a' : `${(permille / 10).toFixed(1).padStart(5)} %`);

function line(name: string, t: Tally): string {
  return `${name.padEnd(34)} killed ${String(t.killed).padStart(4)}  survived ${String(t.survived).padStart(3)}  timeout ${String(t.timeout).padStart(3)}  no coverage ${String(t.noCoverage).padStart(3)}  score ${percent(scorePermille(t))}${t.errors ? `  (${t.errors} not valid)` : ''}`;
}

const started = performance.now();
if (!values['report-only']) {
  const code = await runStryker();
  if (code !== 0) throw new Error(`stryker ended with exit ${code}; its output is above`);
}
const seconds = (performance.now() - started) / 1000;
if (!existsSync(REPORT)) throw new Error(`no report at ${REPORT}: run without --report-only first`);
const report = JSON.parse(readFileSync(REPORT, 'utf8')) as Report;

const all: Mutant[] = [];
for (const [file, { mutants }] of Object.entries(report.files).sort(([a], [b]) => a.localeCompare(b))) {
  all.push(...mutants);
  console.log(line(file, tally(mutants)));
}
if (values.survivors) {
  for (const [file, { mutants }] of Object.entries(report.files)) {
    for (const m of mutants.filter((x) => x.status === 'Survived' || x.status === 'NoCoverage')) {
      console.log(`  ${m.status === 'Survived' ? 'survived   ' : 'no coverage'} ${file}:${m.location.start.line}:${m.location.start.column} ${m.mutatorName} → ${(m.replacement ?? '').replace(/\s+/g, ' ').slice(0, 100)}`);
    }
  }
}
const total = tally(all);
const score = scorePermille(total);
const ran = values['report-only'] ? `read from ${REPORT}` : `${all.length} mutants in ${seconds.toFixed(0)} s (${(all.length / seconds).toFixed(2)} mutants/s, concurrency ${values.concurrency})`;
console.log(`${line('total', total)}; target ≥ ${TARGET} % ${score !== null && score >= TARGET * 10 ? 'met' : 'NOT met'}; ${ran}`);
