// npm run team-db -- [--dir <folder>] [--port <n>] [--state] [--profile <id>]
//                    [--owner-password-env <VAR>] [--member-password-env <VAR>]
// A PostgreSQL of its own to try team mode, as `npm run sandbox` is a gateway of its own: a cluster in a
// folder (default: a new temporary one), on 127.0.0.1 only, with a database `payouts` owned by
// `payouts_owner`; it prints the `profiles team init` / `set` / `check` lines to paste. It stays in the
// foreground and stops the server on Ctrl-C, SIGTERM, or when the npm that started it ends. Without --state
// the folder is removed at stop; with it the folder stays and the next start runs the same cluster.
// First line printed: "team database ready on 127.0.0.1:<port> …".
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Command, InvalidArgumentError } from 'commander';
import { chainToNpm, watchChain } from '../parent-watch';
import { startPostgres, type RunningPostgres } from './cluster';
import { generatePassword, readKeptSettings, writeKeptSettings, type KeptSettings } from './kept-settings';
import { readyLines } from './next-steps';
import { freePort, portIsFree } from './ports';
import { ensureOwnerAndDatabase } from './team-roles';

const DATABASE = 'payouts';
const OWNER = 'payouts_owner';
const MEMBER = 'payouts_desk';
/** Not 5432: that is where a PostgreSQL installed as a service listens. */
const DEFAULT_PORT = 5433;

interface Options {
  dir?: string;
  port?: number;
  state?: boolean;
  profile: string;
  ownerPasswordEnv?: string;
  memberPasswordEnv?: string;
}

function portNumber(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new InvalidArgumentError('port must be an integer 0-65535 (0 picks a free port)');
  return port;
}

/** The port asked for (taken: an error), else the one kept or 5433 when free, else any free one. */
async function choosePort(asked: number | undefined, kept: number | undefined): Promise<number> {
  if (asked === 0) return freePort();
  if (asked !== undefined) {
    if (!(await portIsFree(asked))) throw new Error(`port ${asked} of 127.0.0.1 is taken: give another --port (0 picks a free one)`);
    return asked;
  }
  const preferred = kept ?? DEFAULT_PORT;
  if (await portIsFree(preferred)) return preferred;
  const port = await freePort();
  console.error(`port ${preferred} is taken: using ${port}${kept !== undefined ? ' (profiles set to the old port need profiles team set --url again)' : ''}`);
  return port;
}

function passwordFrom(envName: string | undefined, kept: string | undefined): string {
  if (envName === undefined) return kept ?? generatePassword();
  // The printed lines name it as "$NAME".
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(envName)) throw new Error(`${envName} is not the name of an environment variable`);
  const value = process.env[envName];
  if (!value) throw new Error(`${envName} (named by a --…-password-env option) is not set or empty`);
  return value;
}

/** The folder to run in, refusing one that holds something this command would remove or did not make. */
function chooseFolder(o: Options): { dir: string; madeNow: boolean } {
  if (o.state && o.dir === undefined) throw new Error('--state keeps the folder for the next start, so name it: --state --dir <folder> (e.g. /var/tmp/payout-team-db)');
  if (o.dir === undefined) return { dir: mkdtempSync(join(tmpdir(), 'payout-team-db-')), madeNow: true };
  const dir = resolve(o.dir);
  if (!existsSync(dir)) return { dir, madeNow: true };
  const cluster = existsSync(join(dir, 'data', 'PG_VERSION'));
  if (cluster && !o.state) throw new Error(`${dir} holds a cluster kept by an earlier --state run: add --state to start it again (without it, it would be removed at stop)`);
  if (!cluster && readdirSync(dir).length > 0) throw new Error(`${dir} is not empty and holds no team database: choose a new or empty folder`);
  return { dir, madeNow: false };
}

/** Without --state, what this run made goes: the folder when made now, else its contents (it was empty). */
function removeFolder(dir: string, madeNow: boolean): void {
  if (madeNow) rmSync(dir, { recursive: true, force: true });
  else for (const entry of readdirSync(dir)) rmSync(join(dir, entry), { recursive: true, force: true });
}

async function main(): Promise<void> {
  const o = new Command('team-db')
    .description('A throwaway PostgreSQL on 127.0.0.1 to try team mode; prints the profiles team lines to use')
    .option('--dir <folder>', 'folder of the cluster (default: a new temporary folder)')
    .option('--port <n>', `port on 127.0.0.1 (default ${DEFAULT_PORT}, or a free one when taken; 0 = any free port)`, portNumber)
    .option('--state', 'keep the folder when stopped and start the cluster found there again (needs --dir)')
    .option('--profile <id>', 'the profile the printed lines name', 'sandbox')
    .option('--owner-password-env <name>', `environment variable holding ${OWNER}'s password (default: generated)`)
    .option('--member-password-env <name>', `environment variable holding ${MEMBER}'s password (default: generated)`)
    .parse()
    .opts<Options>();
  const keep = o.state === true;
  const { dir, madeNow } = chooseFolder(o);
  const cleanUp = () => {
    if (!keep || madeNow) removeFolder(dir, madeNow);
  };

  let server: RunningPostgres;
  let settings: KeptSettings;
  let serverVersion: string;
  try {
    const kept = keep ? readKeptSettings(dir) : null;
    settings = {
      port: await choosePort(o.port, kept?.port),
      ownerPassword: passwordFrom(o.ownerPasswordEnv, kept?.ownerPassword),
      memberPassword: passwordFrom(o.memberPasswordEnv, kept?.memberPassword),
    };
    server = await startPostgres({ dir, port: settings.port, hostAuth: 'scram-sha-256', durable: true });
    try {
      serverVersion = await ensureOwnerAndDatabase(server.superuser(), { database: DATABASE, owner: OWNER, ownerPassword: settings.ownerPassword });
    } catch (error) {
      await server.stop();
      throw error;
    }
  } catch (error) {
    cleanUp();
    throw error;
  }
  if (keep) writeKeptSettings(dir, settings);
  const { ownerPassword, memberPassword } = settings;
  const lines = readyLines({
    port: server.port, serverVersion, database: DATABASE, owner: OWNER, ownerPassword, member: MEMBER, memberPassword,
    dir, kept: keep, reused: server.reused, profile: o.profile,
    ...(o.ownerPasswordEnv ? { ownerPasswordEnv: o.ownerPasswordEnv } : {}),
    ...(o.memberPasswordEnv ? { memberPasswordEnv: o.memberPasswordEnv } : {}),
  });
  console.log(lines.join('\n'));

  let stopping = false;
  const stop = (why: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`${why}: stopping the team database`);
    void server.stop().then(() => {
      if (!keep) removeFolder(dir, madeNow);
      console.log(keep ? `stopped; the folder ${dir} is kept` : 'stopped; its folder is removed');
      process.exit(0);
    });
  };
  // `on`, not `once`: Ctrl-C reaches this process twice (from the terminal and relayed by tsx), and with no
  // listener left tsx's handler would end it at the second, before PostgreSQL stopped and the folder went.
  process.on('SIGINT', () => stop('interrupted'));
  process.on('SIGTERM', () => stop('terminated'));
  // Stopped through npm (its PID): the signal does not come down the chain, so its end is watched for.
  watchChain(chainToNpm(), () => stop('the npm that started it has stopped'));
  void server.exited.then(({ code, log }) => {
    if (stopping) return;
    console.error(`postgres stopped by itself (exit ${String(code)}):\n${log}`);
    if (!keep) removeFolder(dir, madeNow);
    process.exit(1);
  });
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
});
