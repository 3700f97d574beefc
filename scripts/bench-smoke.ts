// Every bench script, run small: the suite's guard that no bench rots unnoticed (issue 25). Figures are not
// judged here (a busy CI machine says nothing about speed); a bench passes when it runs to its end and prints.
// A bench added to bench/ without a line here fails this script, so none is left out by forgetting.
// Run: npx tsx scripts/bench-smoke.ts [name…]   (history-ui needs out/renderer: electron-vite build)
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

/** Each bench's smallest meaningful run; null for a module the benches share, which is not a bench. */
const SMOKE: Record<string, string[] | null> = {
  'approvals-queue': ['--subjects', '3', '--rows', '200', '--runs', '2'],
  'approvals-verify': ['--rows', '500', '--repeat', '1'],
  batch: ['--rows', '40', '--only', 'all', '--networks', 'loopback', '--repeat', '1'],
  // Builds the CLI into a folder of its own first, so it needs no earlier build.
  'cli-start': ['--runs', '2'],
  csv: ['--rows', '2000', '--runs', '1'],
  'history-query': ['--rows', '2000'],
  'history-ui': ['--rows', '500', '--runs', '1'],
  limiter: ['--calls', '30', '--callers', '4'],
  overview: ['--payouts', '20000', '--runs', '1'],
  pain001: ['--rows', '2000', '--runs', '1'],
  'payee-book': ['--rows', '1000', '--runs', '1'],
  'payee-check': ['--rows', '1000', '--runs', '1'],
  'repeat-check': ['--earlier', '20000', '--rows', '2000', '--runs', '1'],
  'pg-history': ['--rows', '2000', '--runs', '2'],
  'pg-journal': ['--sends', '20', '--max-batch', '300'],
  sandbox: ['--seconds', '1', '--connections', '4'],
  statement: ['--payouts', '20000', '--runs', '1'],
  simulate: ['--seeds', '2', '--steps', '40', '--workers', '1'],
  // One short rule (the journal's check of a new batch) against its own test and histories of 10 steps: proves
  // Stryker, its vitest config and the report reader still fit together; the whole set runs for most of an hour.
  mutation: ['--mutate', 'main/journal/shared.ts:39-45', '--test-files', 'test/unit/journal/batch-checks.test.ts,test/simulation/fixed-seeds.mutation.ts', '--sim-steps', '10'],
  'team-engine': ['--rows', '40', '--repeat', '1'],
  'team-rate-budget': ['--n', '30', '--workers', '3'],
  args: null,
  'first-then-median': null,
  'scratch-database': null,
  'sandbox-process': null,
};

const LIMIT_MS = 240_000;
const JOBS = 2;

interface Outcome { name: string; ok: boolean; ms: number; lastLine: string; why: string }

function run(name: string, args: string[]): Promise<Outcome> {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', `bench/${name}.ts`, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), LIMIT_MS);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const ms = performance.now() - started;
      const lines = out.trim().split('\n').filter(Boolean);
      const lastLine = lines.at(-1) ?? '';
      const why = signal ? `killed after ${Math.round(LIMIT_MS / 1000)} s` : code !== 0 ? `exit ${code}: ${err.trim().split('\n').slice(-4).join(' | ')}` : lines.length === 0 ? 'printed nothing' : '';
      resolve({ name, ok: why === '', ms, lastLine, why });
    });
  });
}

async function main(): Promise<void> {
  const present = readdirSync('bench').filter((f) => f.endsWith('.ts')).map((f) => f.slice(0, -3));
  const unlisted = present.filter((name) => !(name in SMOKE));
  const wanted = process.argv.slice(2);
  const names = (wanted.length > 0 ? wanted : present).filter((name) => SMOKE[name]);
  const outcomes: Outcome[] = [];
  // Two at a time: most benches spend their run waiting (rate limits, a PostgreSQL cluster starting, a browser).
  let next = 0;
  const lane = async () => {
    for (let i = next++; i < names.length; i = next++) {
      const name = names[i]!;
      const outcome = await run(name, SMOKE[name] ?? []);
      outcomes.push(outcome);
      console.log(`${outcome.ok ? 'ok  ' : 'FAIL'} ${name.padEnd(18)} ${(outcome.ms / 1000).toFixed(1).padStart(5)} s  ${outcome.ok ? outcome.lastLine.slice(0, 110) : outcome.why}`);
    }
  };
  await Promise.all(Array.from({ length: JOBS }, lane));
  for (const name of unlisted) console.log(`FAIL ${name.padEnd(18)} not listed in scripts/bench-smoke.ts: give it a small run there`);
  const failed = outcomes.filter((o) => !o.ok).length + unlisted.length;
  console.log(`bench smoke: ${outcomes.length - outcomes.filter((o) => !o.ok).length} of ${outcomes.length} benches ran to their end${failed ? `, ${failed} failed` : ''}`);
  process.exitCode = failed > 0 ? 1 : 0;
}

void main();
