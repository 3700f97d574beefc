// A throwaway PostgreSQL cluster with the team schema, for the benches that measure the team database: started,
// migrated, given to `run` as a pool, and stopped however `run` ends.
import pg from 'pg';
import { migratePg } from '../main/store/postgres/migrations';
import { startCluster } from '../test/integration/postgres/cluster';

export async function withScratchDatabase(run: (pool: pg.Pool) => Promise<void>, options: { connections?: number } = {}): Promise<void> {
  const cluster = await startCluster();
  const pool = new pg.Pool({ connectionString: cluster.url, max: options.connections ?? 4 });
  // pool.end() resolves once it has told its clients to end, not once the server has seen them go (pg-pool), so
  // cluster.stop() can terminate one still closing (57P01): an idle client's error then, not the bench's.
  let stopping = false;
  pool.on('error', (error) => {
    if (!stopping) console.error(`an idle connection failed: ${error.message}`);
  });
  try {
    await migratePg(pool);
    await run(pool);
  } finally {
    stopping = true;
    await pool.end();
    await cluster.stop();
  }
}
