// `npm run sandbox` starts a chain (npm → sh → tsx → node) and stopping npm by its PID does not reach the
// sandbox at its end: it kept listening (issue 26). So the sandbox watches the processes between itself and
// the npm that started it, and stops when any of them is gone. Linux only (it reads /proc); elsewhere, and
// when no npm started it, nothing is watched.
import { readFileSync } from 'node:fs';

function parentOf(pid: number): number | null {
  try {
    // /proc/<pid>/stat: "pid (comm) state ppid …"; comm may hold spaces or parentheses, so read after the last ")".
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    return Number.isInteger(ppid) && ppid > 1 ? ppid : null;
  } catch {
    return null;
  }
}

function isNpm(pid: number): boolean {
  try {
    const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    return /(^|\/)npm(-cli\.js)?$/.test(argv[0] ?? '') || /(^|\/)npm-cli\.js$/.test(argv[1] ?? '') || (argv[0] ?? '').startsWith('npm ');
  } catch {
    return false;
  }
}

/** The processes from this one's parent up to the npm that started it; empty when no npm is among the first few. */
export function chainToNpm(start = process.ppid): number[] {
  const chain: number[] = [];
  for (let pid: number | null = start; pid !== null && chain.length < 6; pid = parentOf(pid)) {
    chain.push(pid);
    if (isNpm(pid)) return chain;
  }
  return [];
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** Calls `onGone` once when a process of `chain` has ended (checked every `everyMs`); returns the stop. */
export function watchChain(chain: readonly number[], onGone: (pid: number) => void, everyMs = 1000): () => void {
  if (chain.length === 0) return () => undefined;
  const timer = setInterval(() => {
    const gone = chain.find((pid) => !alive(pid));
    if (gone === undefined) return;
    clearInterval(timer);
    onGone(gone);
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
