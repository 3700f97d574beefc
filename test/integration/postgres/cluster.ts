// A throwaway PostgreSQL for the tests: a fresh cluster (initdb) in a temporary folder, started on a free
// loopback port and stopped by its pid. PostgreSQL refuses to run as root, so as root the cluster belongs
// to the unprivileged `postgres` user of Debian's package and its programs run through runuser.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

export interface Cluster {
  /** postgres://… of the cluster's `postgres` database (trust authentication on loopback). */
  url: string;
  stop(): Promise<void>;
}

const PACKAGE_HINT = "PostgreSQL's server programs (initdb, postgres) were not found: install Debian's package with `apt-get install postgresql` (the test command does so when run as root)";

/** The newest /usr/lib/postgresql/<major>/bin (Debian keeps the server programs off PATH), else PATH. */
export function serverBinDir(): string | null {
  const root = '/usr/lib/postgresql';
  if (existsSync(root)) {
    const majors = readdirSync(root).filter((d) => /^\d+$/.test(d) && existsSync(join(root, d, 'bin', 'initdb'))).sort((a, b) => Number(b) - Number(a));
    if (majors[0]) return join(root, majors[0], 'bin');
  }
  try {
    const initdb = execFileSync('sh', ['-c', 'command -v initdb'], { encoding: 'utf8' }).trim();
    return initdb ? join(initdb, '..') : null;
  } catch {
    return null;
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

async function ready(url: string, child: ChildProcess, log: () => string): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`postgres exited (${child.exitCode}) before accepting connections:\n${log()}`);
    const client = new pg.Client({ connectionString: url });
    try {
      await client.connect();
      await client.end();
      return;
    } catch (error) {
      await client.end().catch(() => undefined);
      if (Date.now() > deadline) throw new Error(`postgres did not accept connections within 60 s: ${(error as Error).message}\n${log()}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

export async function startCluster(): Promise<Cluster> {
  const bin = serverBinDir();
  if (!bin) throw new Error(PACKAGE_HINT);
  const asRoot = process.getuid?.() === 0;
  const dir = mkdtempSync(join(tmpdir(), 'desk-pg-'));
  const data = join(dir, 'data');
  const run = (program: string, args: string[]): [string, string[]] => (asRoot ? ['runuser', ['-u', 'postgres', '--', join(bin, program), ...args]] : [join(bin, program), args]);
  if (asRoot) {
    try {
      const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
      const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
      chownSync(dir, uid, gid);
    } catch {
      rmSync(dir, { recursive: true, force: true });
      throw new Error(`running as root, the cluster must belong to an unprivileged user, and there is no "postgres" user: ${PACKAGE_HINT}`);
    }
  }
  const [initdb, initArgs] = run('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '--encoding=UTF8', '--no-locale', '--no-sync']);
  execFileSync(initdb, initArgs, { stdio: 'pipe' });
  const port = await freePort();
  let output = '';
  // fsync off: a throwaway cluster; durability is what the tests of the adapter do not measure.
  const [postgres, args] = run('postgres', ['-D', data, '-p', String(port), '-h', '127.0.0.1', '-k', dir, '-c', 'fsync=off', '-c', 'max_connections=200']);
  const child = spawn(postgres, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  const stop = async () => {
    if (child.exitCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      // SIGINT is PostgreSQL's fast shutdown. runuser does not pass SIGINT on (it forwards only SIGTERM), so as
      // root the postmaster (its pid heads postmaster.pid) is signalled itself; runuser exits with it. Signalling
      // runuser left postgres running after the run, orphaned, until it noticed its folder gone (up to a minute),
      // and vitest waited for it ("close timed out").
      const postmaster = asRoot ? postmasterPid(data) : null;
      if (postmaster !== null) process.kill(postmaster, 'SIGINT');
      else child.kill('SIGINT');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
      if (child.exitCode === null) child.kill('SIGKILL');
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await ready(url, child, () => output);
  } catch (error) {
    await stop();
    throw error;
  }
  return { url, stop };
}

/** The postmaster's pid from the first line of its postmaster.pid; null if there is none (yet). */
function postmasterPid(data: string): number | null {
  try {
    const pid = Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

/** A new empty database on the cluster for one test file; its URL. */
export async function freshDatabase(clusterUrl: string, name = `t_${Math.random().toString(36).slice(2, 10)}`): Promise<string> {
  const client = new pg.Client({ connectionString: clusterUrl });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${name}`);
  } finally {
    await client.end();
  }
  return clusterUrl.replace(/\/[^/]*$/, `/${name}`);
}
