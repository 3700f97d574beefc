// The recurring payouts' store contract on the team database, with two desks (each its own pool) claiming one date.
import pg from 'pg';
import { afterEach, inject } from 'vitest';
import { migratePg } from '../../../main/store/postgres/migrations';
import { PgRecurringStore } from '../../../main/store/postgres/recurring';
import type { RecurringStore } from '../../../main/schedules/recurring';
import { recurringStoreContract } from '../../unit/schedules/recurring-contract';
import { freshDatabase } from './cluster';

const pools: pg.Pool[] = [];
const urls = new WeakMap<RecurringStore, string>();
afterEach(async () => {
  for (const p of pools.splice(0)) await p.end();
});

const storeAt = (url: string): RecurringStore => {
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  pools.push(pool);
  const store = new PgRecurringStore(pool);
  urls.set(store, url);
  return store;
};

recurringStoreContract(
  'PostgreSQL',
  async () => {
    const url = await freshDatabase(inject('postgresUrl'));
    const store = storeAt(url);
    await migratePg(pools.at(-1)!);
    return store;
  },
  async (first) => storeAt(urls.get(first)!),
);
