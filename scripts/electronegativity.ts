// Runs @doyensec/electronegativity through its programmatic API over the built app (out/) and the
// main and preload sources, then fails on any HIGH or MEDIUM finding that .electronegativity.json
// does not explain. (The tool itself exits 0 on findings, and it does not read .vue files: the
// renderer is checked through its built output in out/renderer.)
import { cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { z } from 'zod';

interface Level {
  name?: string;
  value: number;
}

export interface Finding {
  id: string;
  file: string;
  location: { line: number; column: number };
  severity: Level;
  confidence: Level;
  description: string;
  manualReview?: boolean;
}

interface RunResult {
  globalChecks: number;
  atomicChecks: number;
  errors: { file: string; message: string; tolerable: boolean }[];
  issues: Finding[];
}

type Run = (options: { input: string; isRelative?: boolean; electronVersionOverride?: string; parserPlugins?: string[] }) => Promise<RunResult>;

const ConfigSchema = z.object({
  explained: z.array(z.strictObject({ check: z.string().min(1), files: z.array(z.string().min(1)).min(1), reason: z.string().min(20) })),
});
export type ExplanationConfig = z.infer<typeof ConfigSchema>;

const BLOCKING = new Set(['HIGH', 'MEDIUM']);

const levelName = (level: Level): string => (level.name ?? (level.value >= 3 ? 'HIGH' : level.value === 2 ? 'MEDIUM' : level.value === 1 ? 'LOW' : 'INFORMATIONAL')).toUpperCase();

/** Splits findings into blocking ones (HIGH/MEDIUM, not explained) and the rest. */
export function triage(findings: readonly Finding[], config: ExplanationConfig): { blocking: Finding[]; explained: Finding[]; minor: Finding[] } {
  const out = { blocking: [] as Finding[], explained: [] as Finding[], minor: [] as Finding[] };
  for (const f of findings) {
    const file = f.file.replace(/\\/g, '/');
    const explained = config.explained.some((e) => e.check === f.id && e.files.some((suffix) => file.endsWith(suffix)));
    if (!BLOCKING.has(levelName(f.severity))) out.minor.push(f);
    else if (explained) out.explained.push(f);
    else out.blocking.push(f);
  }
  return out;
}

async function main(): Promise<void> {
  const root = resolve(import.meta.dirname, '..');
  const config = ConfigSchema.parse(JSON.parse(await readFile(join(root, '.electronegativity.json'), 'utf8')));
  const electronVersion = (JSON.parse(await readFile(join(root, 'node_modules/electron/package.json'), 'utf8')) as { version: string }).version;
  // One input folder, so the global checks (CSP, navigation, permissions) see main, preload and the page together.
  const input = await mkdtemp(join(tmpdir(), 'desk-electronegativity-'));
  try {
    await cp(join(root, 'out'), join(input, 'out'), { recursive: true });
    await cp(join(root, 'main'), join(input, 'src/main'), { recursive: true, filter: (src) => !src.endsWith('.test.ts') });
    await cp(join(root, 'preload'), join(input, 'src/preload'), { recursive: true });
    const run = createRequire(import.meta.url)('@doyensec/electronegativity') as Run;
    const result = await run({ input, isRelative: true, electronVersionOverride: electronVersion });
    const { blocking, explained, minor } = triage(result.issues, config);
    const line = (f: Finding) => `  ${levelName(f.severity).padEnd(6)} ${f.id} ${f.file}:${f.location.line}`;
    console.log(`electronegativity ${result.atomicChecks} atomic + ${result.globalChecks} global checks on out/ and main, preload sources (Electron ${electronVersion})`);
    console.log(`findings: ${result.issues.length} (blocking ${blocking.length}, explained ${explained.length}, low/informational ${minor.length}); parse errors: ${result.errors.filter((e) => !e.tolerable).length}`);
    if (explained.length) console.log(`explained in .electronegativity.json:\n${explained.map(line).join('\n')}`);
    if (minor.length) console.log(`low / informational (not blocking):\n${minor.map(line).join('\n')}`);
    const hardErrors = result.errors.filter((e) => !e.tolerable);
    if (hardErrors.length) {
      // A file the tool could not read is a file nobody checked.
      console.error(`files the tool could not parse:\n${hardErrors.map((e) => `  ${e.file}: ${e.message}`).join('\n')}`);
      process.exitCode = 1;
    }
    if (blocking.length > 0) {
      console.error(`UNEXPLAINED HIGH/MEDIUM findings:\n${blocking.map((f) => `${line(f)}\n    ${f.description}`).join('\n')}`);
      process.exitCode = 1;
    }
  } finally {
    await rm(input, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) await main();
