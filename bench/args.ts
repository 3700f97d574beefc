// Sizes a bench takes from its command line (`--rows 2000`), so the suite can run it small (scripts/bench-smoke.ts)
// while a person runs it at the size its target names.

/** The number after `--name`, else the fallback; a value that is not a positive number is refused. */
export function numberArg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  if (i === -1) return fallback;
  const value = Number(process.argv[i + 1]);
  if (!(Number.isFinite(value) && value > 0)) throw new Error(`--${name} needs a positive number, not "${process.argv[i + 1] ?? ''}"`);
  return value;
}
