// A throwaway PostgreSQL for the tests: a fresh cluster in a temporary folder, started on a free loopback
// port with every loopback login trusted, and removed when stopped. The cluster itself (initdb, running as
// Debian's `postgres` user when root, stopping by the postmaster's pid) is sandbox/team-db/cluster.ts, the
// one `npm run team-db` starts.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { startPostgres } from '../../../sandbox/team-db/cluster';
import { freePort } from '../../../sandbox/team-db/ports';

export { serverBinDir } from '../../../sandbox/team-db/server-programs';

export interface Cluster {
  /** postgres://… of the cluster's `postgres` database (trust authentication on loopback). */
  url: string;
  stop(): Promise<void>;
}

export async function startCluster(): Promise<Cluster> {
  const dir = mkdtempSync(join(tmpdir(), 'desk-pg-'));
  const remove = () => rmSync(dir, { recursive: true, force: true });
  let server;
  try {
    // fsync off: a throwaway cluster; durability is what the tests of the adapter do not measure.
    server = await startPostgres({ dir, port: await freePort(), hostAuth: 'trust', durable: false, maxConnections: 200 });
  } catch (error) {
    remove();
    throw error;
  }
  const running = server;
  return {
    url: `postgres://postgres@127.0.0.1:${running.port}/postgres`,
    stop: async () => {
      await running.stop();
      remove();
    },
  };
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
