// Where PostgreSQL's server programs are, and how to run them. Debian keeps initdb and postgres off PATH in
// /usr/lib/postgresql/<major>/bin. PostgreSQL refuses to run as root, so as root its programs run as the
// package's unprivileged `postgres` user (runuser), and the cluster's folder belongs to that user.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

const DEBIAN_ROOT = '/usr/lib/postgresql';
/** The OS user a cluster belongs to when started as root (made by Debian's postgresql package). */
export const CLUSTER_USER = 'postgres';

export const MISSING_PROGRAMS =
  "PostgreSQL's server programs (initdb, postgres) were not found in /usr/lib/postgresql/<major>/bin or on PATH: install Debian's package with `apt-get install postgresql` (sudo when not root)";

/**
 * The bin folder of the server programs: of `major` when given (a kept cluster must run on its own major),
 * else the newest under /usr/lib/postgresql, else the folder of initdb on PATH; null when there is none.
 */
export function serverBinDir(major?: string): string | null {
  if (major !== undefined) {
    const bin = join(DEBIAN_ROOT, major, 'bin');
    return existsSync(join(bin, 'initdb')) ? bin : onPath(major);
  }
  if (existsSync(DEBIAN_ROOT)) {
    const majors = readdirSync(DEBIAN_ROOT)
      .filter((d) => /^\d+$/.test(d) && existsSync(join(DEBIAN_ROOT, d, 'bin', 'initdb')))
      .sort((a, b) => Number(b) - Number(a));
    if (majors[0]) return join(DEBIAN_ROOT, majors[0], 'bin');
  }
  return onPath();
}

/** The folder of initdb on PATH (of `major`, when one is asked for); null when there is none. */
function onPath(major?: string): string | null {
  try {
    const initdb = execFileSync('sh', ['-c', 'command -v initdb'], { encoding: 'utf8' }).trim();
    if (!initdb) return null;
    if (major !== undefined && !execFileSync(initdb, ['--version'], { encoding: 'utf8' }).includes(` ${major}.`)) return null;
    return join(initdb, '..');
  } catch {
    return null;
  }
}

export const runningAsRoot = (): boolean => process.getuid?.() === 0;

/** uid and gid of the cluster's user (as root), or a message naming the package that makes it. */
export function clusterOwner(): { uid: number; gid: number } {
  try {
    const uid = Number(execFileSync('id', ['-u', CLUSTER_USER], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', CLUSTER_USER], { encoding: 'utf8' }).trim());
    return { uid, gid };
  } catch {
    throw new Error(`running as root, the cluster must belong to an unprivileged user, and there is no "${CLUSTER_USER}" user: ${MISSING_PROGRAMS}`);
  }
}

/** The command line of a server program: as is, or through runuser as the cluster's user when root. */
export function serverCommand(bin: string, program: string, args: readonly string[]): [string, string[]] {
  return runningAsRoot() ? ['runuser', ['-u', CLUSTER_USER, '--', join(bin, program), ...args]] : [join(bin, program), [...args]];
}
