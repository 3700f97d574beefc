// One transaction on one pooled connection of the team database: committed when `fn` resolves, rolled back
// when it throws; the connection goes back to the pool either way.
import type { Pool, PoolClient } from 'pg';

export async function inTransaction<T>(pool: Pool, fn: (client: PoolClient) => Promise<T>, begin = 'BEGIN'): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query(begin);
    const result = await fn(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}
