// A desk's limiter in a team: its own limiter's lanes and pacing, then a slot of the merchant's budget in the
// team database. Two desks, each within its own limit, put no more than the limit into any gateway window
// together; the same two desks with only their own limiters do (the control).
import pg from 'pg';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { RateLimiter } from '../../../main/gateway/rate-limiter';
import { migratePg } from '../../../main/store/postgres/migrations';
import { TeamRateBudget } from '../../../main/store/postgres/rate-budget';
import { TeamRateLimiter } from '../../../main/store/postgres/team-limiter';
import { freshDatabase } from './cluster';
import { FakeGateway, maxInAnyWindow } from './team-desks';

const pools: pg.Pool[] = [];
afterAll(async () => {
  for (const p of pools.splice(0)) await p.end();
});

async function teamDatabase(): Promise<string> {
  const url = await freshDatabase(inject('postgresUrl'));
  const admin = new pg.Pool({ connectionString: url, max: 1 });
  pools.push(admin);
  await migratePg(admin);
  return url;
}

function teamLimiter(url: string, deskId: string): TeamRateLimiter {
  const pool = new pg.Pool({ connectionString: url, max: 3 });
  pool.on('error', () => undefined);
  pools.push(pool);
  const budget = new TeamRateBudget({ pool, deskId, baseUrl: 'https://gateway.test', merchantCode: 'M-1', limit: 10 });
  return new TeamRateLimiter(budget, { requestTimeoutMs: 15_000 });
}

/** `count` requests through the limiter, `workers` at a time, as the transport runs them (a 429 is an answer). */
async function send(limiter: RateLimiter, gateway: FakeGateway, desk: string, count: number, workers: number): Promise<void> {
  let left = count;
  const worker = async () => {
    while (left > 0) {
      left -= 1;
      const done = await limiter.acquire('create');
      const answer = await gateway.request(desk);
      done(answer === 'ok' ? 'answered' : 'rate-limited');
    }
  };
  await Promise.all(Array.from({ length: workers }, worker));
}

describe('the team rate limiter', () => {
  it('two desks sending at full speed share the 10 a second: no 429, at most 10 in any window', { timeout: 60_000 }, async () => {
    const url = await teamDatabase();
    const gateway = new FakeGateway(10);
    await Promise.all([send(teamLimiter(url, 'desk-a'), gateway, 'desk-a', 30, 8), send(teamLimiter(url, 'desk-b'), gateway, 'desk-b', 30, 8)]);
    expect(gateway.accepted.length).toBe(60);
    // Both desks progress at once (each keeps to its share while the other waits): by the time the first
    // desk is done, the other has sent at least a third of its own.
    const doneAt = (desk: string) => Math.max(...gateway.arrivals.filter((a) => a.desk === desk).map((a) => a.at));
    const first = doneAt('desk-a') < doneAt('desk-b') ? 'desk-a' : 'desk-b';
    const other = first === 'desk-a' ? 'desk-b' : 'desk-a';
    expect(gateway.arrivals.filter((a) => a.desk === other && a.at <= doneAt(first)).length).toBeGreaterThanOrEqual(10);
    expect(gateway.rateLimited).toBe(0);
    expect(maxInAnyWindow(gateway.accepted)).toBeLessThanOrEqual(10);
  });

  it('control: the same desks with only their own limiters overrun the gateway', { timeout: 60_000 }, async () => {
    const gateway = new FakeGateway(10);
    await Promise.all([send(new RateLimiter({ limit: 10 }), gateway, 'desk-a', 30, 8), send(new RateLimiter({ limit: 10 }), gateway, 'desk-b', 30, 8)]);
    expect(gateway.rateLimited).toBeGreaterThan(0);
  });

  it('refuses a gateway time-out longer than a budget slot may live', () => {
    const budget = new TeamRateBudget({ pool: new pg.Pool(), deskId: 'd', baseUrl: 'https://gateway.test', merchantCode: 'M-1', limit: 10, maxRequestMs: 10_000 });
    expect(() => new TeamRateLimiter(budget, { requestTimeoutMs: 15_000 })).toThrow(/must not be longer/);
  });
});
