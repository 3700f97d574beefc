// A PostgreSQL cluster in a folder of its own, listening on 127.0.0.1 only: made with initdb the first time,
// started again when the folder already holds one, and stopped by the postmaster's pid. Used by
// `npm run team-db` (sandbox/team-db/cli.ts) and by the tests' throwaway cluster
// (test/integration/postgres/cluster.ts). The superuser `postgres` logs in over the unix socket in the
// folder (trust: only the folder's owner reaches it); logins over TCP use `hostAuth`.
import { execFileSync, spawn } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { CLUSTER_USER, clusterOwner, MISSING_PROGRAMS, runningAsRoot, serverBinDir, serverCommand } from './server-programs';

export interface PostgresOptions {
  /** The cluster's folder: its data in <dir>/data, its socket in <dir>. Made when missing. */
  dir: string;
  port: number;
  /** How logins over TCP are checked: `trust` (anyone on this machine, the tests) or passwords. */
  hostAuth: 'trust' | 'scram-sha-256';
  /** false: no fsync, for a cluster whose durability nobody relies on (the tests). */
  durable: boolean;
  maxConnections?: number;
}

export interface RunningPostgres {
  port: number;
  /** Found in the folder from an earlier run (not made now). */
  reused: boolean;
  /** pg settings of the superuser over the folder's unix socket. */
  superuser(database?: string): pg.ClientConfig;
  /** Settles when the server exits, whatever the cause; with its log. */
  exited: Promise<{ code: number | null; log: string }>;
  /** Fast shutdown (SIGINT), killed after 10 s; the folder stays. */
  stop(): Promise<void>;
}

/** Longest unix socket path Linux takes (sun_path is 108 bytes with its NUL). */
const SOCKET_PATH_MAX = 107;

export async function startPostgres(options: PostgresOptions): Promise<RunningPostgres> {
  const { dir, port } = options;
  const data = join(dir, 'data');
  const socket = join(dir, `.s.PGSQL.${port}`);
  if (Buffer.byteLength(socket) > SOCKET_PATH_MAX) throw new Error(`the folder's path is too long for PostgreSQL's socket (${socket}): choose a shorter one`);
  const reused = existsSync(join(data, 'PG_VERSION'));
  // A kept cluster runs on the major version that made it.
  const major = reused ? readFileSync(join(data, 'PG_VERSION'), 'utf8').trim() : undefined;
  const bin = serverBinDir(major);
  if (!bin) throw new Error(major ? `the cluster in ${dir} is PostgreSQL ${major}, whose server programs are not installed: apt-get install postgresql-${major}` : MISSING_PROGRAMS);
  prepareFolder(dir);
  if (!reused) {
    const auth = ['--auth-local=trust', `--auth-host=${options.hostAuth}`];
    const [initdb, args] = serverCommand(bin, 'initdb', ['-D', data, '-U', 'postgres', ...auth, '--encoding=UTF8', '--no-locale', ...(options.durable ? [] : ['--no-sync'])]);
    execFileSync(initdb, args, { stdio: 'pipe' });
  }

  const settings = [...(options.durable ? [] : ['-c', 'fsync=off']), ...(options.maxConnections ? ['-c', `max_connections=${options.maxConnections}`] : [])];
  const [postgres, args] = serverCommand(bin, 'postgres', ['-D', data, '-p', String(port), '-h', '127.0.0.1', '-k', dir, ...settings]);
  const child = spawn(postgres, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  child.stdout.on('data', (d: Buffer) => (log += d.toString()));
  child.stderr.on('data', (d: Buffer) => (log += d.toString()));
  const exited = new Promise<{ code: number | null; log: string }>((resolve) => child.once('exit', (code) => resolve({ code, log })));
  const superuser = (database = 'postgres'): pg.ClientConfig => ({ host: dir, port, user: 'postgres', database });

  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    // SIGINT is PostgreSQL's fast shutdown. runuser does not pass SIGINT on (it forwards only SIGTERM), so as
    // root the postmaster (its pid heads postmaster.pid) is signalled itself; runuser exits with it. Signalling
    // runuser left postgres running, orphaned, until it noticed its folder gone (up to a minute).
    // A Ctrl-C in a terminal reaches postgres too (same process group): it may be gone already.
    const postmaster = runningAsRoot() ? postmasterPid(data) : null;
    try {
      if (postmaster !== null) process.kill(postmaster, 'SIGINT');
      else child.kill('SIGINT');
    } catch {
      // ESRCH: it has stopped.
    }
    await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  };

  try {
    await acceptingConnections(superuser(), exited, () => log);
  } catch (error) {
    await stop();
    throw error;
  }
  return { port, reused, superuser, exited, stop };
}

/** Made when missing; as root given to the cluster's user, who must be able to reach it. */
function prepareFolder(dir: string): void {
  mkdirSync(dir, { recursive: true });
  if (!runningAsRoot()) return;
  const { uid, gid } = clusterOwner();
  chownSync(dir, uid, gid);
  try {
    execFileSync('runuser', ['-u', CLUSTER_USER, '--', 'test', '-w', dir, '-a', '-x', dir], { stdio: 'ignore' });
  } catch {
    throw new Error(`the cluster runs as the "${CLUSTER_USER}" user, who cannot reach ${dir} (a folder above it is closed to it, as /root is): choose a folder under /tmp or /var/tmp`);
  }
}

async function acceptingConnections(config: pg.ClientConfig, exited: RunningPostgres['exited'], log: () => string): Promise<void> {
  let gone: { code: number | null; log: string } | null = null;
  void exited.then((e) => (gone = e));
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (gone) {
      const { code, log } = gone;
      throw new Error(`postgres exited (${String(code)}) before accepting connections:\n${log}`);
    }
    const client = new pg.Client(config);
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

/** The postmaster's pid from the first line of its postmaster.pid; null if there is none (yet). */
function postmasterPid(data: string): number | null {
  try {
    const pid = Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}
