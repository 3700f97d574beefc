// The gateway's rate budget shared by desks through the team database: desks on their own pools sending at
// once never put more than the limit in any gateway window (0 × 429), keep going when the server kills their
// sessions, and a desk that dies holding slots gives them back within the bound the rule promises.
import pg from 'pg';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { migratePg } from '../../../main/store/postgres/migrations';
import { freshDatabase } from './cluster';
import { Desk, FakeGateway, killSessions, maxInAnyWindow } from './team-desks';

const pools: pg.Pool[] = [];
const desks: Desk[] = [];
afterAll(async () => {
  for (const d of desks.splice(0)) await d.close().catch(() => undefined);
  for (const p of pools.splice(0)) await p.end();
});

/** A migrated team database and an admin pool on it (the server's side: kills, reading slots). */
async function teamDatabase(): Promise<{ url: string; admin: pg.Pool }> {
  const url = await freshDatabase(inject('postgresUrl'));
  const admin = new pg.Pool({ connectionString: url, max: 2, application_name: 'admin' });
  pools.push(admin);
  await migratePg(admin);
  return { url, admin };
}

function desk(...args: ConstructorParameters<typeof Desk>): Desk {
  const d = new Desk(...args);
  desks.push(d);
  return d;
}

/** Slot times on the database's clock (ms), in reservation order. */
async function slots(admin: pg.Pool, deskId: string): Promise<{ reservedAt: number; endedAt: number | null }[]> {
  const result = await admin.query<{ reserved_at: number; ended_at: number | null }>(
    `SELECT (extract(epoch FROM reserved_at) * 1000)::float8 AS reserved_at, (extract(epoch FROM ended_at) * 1000)::float8 AS ended_at
     FROM rate_budget_slots WHERE desk_id = $1 ORDER BY id`,
    [deskId],
  );
  return result.rows.map((r) => ({ reservedAt: r.reserved_at, endedAt: r.ended_at }));
}

describe('the team rate budget', () => {
  it('keeps three desks sending at once within the limit in every window, through killed sessions', async () => {
    const { url, admin } = await teamDatabase();
    const gateway = new FakeGateway(10);
    const [a, b, c] = [desk('desk-a', url), desk('desk-b', url), desk('desk-c', url)];
    const kills: number[] = [];
    // Kill desk A's sessions once 10 and once 25 requests have arrived (A has 15 to send: it is still at it).
    const killer = (async () => {
      for (const at of [10, 25]) {
        while (gateway.arrivals.length < at) await new Promise((r) => setTimeout(r, 5));
        kills.push(await killSessions(admin, 'desk-a'));
      }
    })();
    await Promise.all([a.send(gateway, 15, 4), b.send(gateway, 15, 4), c.send(gateway, 15, 4), killer]);

    expect(kills[0]).toBeGreaterThan(0);
    expect([a.sent, b.sent, c.sent]).toEqual([15, 15, 15]);
    expect(gateway.rateLimited).toBe(0);
    expect(maxInAnyWindow(gateway.accepted)).toBeLessThanOrEqual(10);
  });

  it('gives a dead desk’s in-flight slots to the others once their bound has passed, not before', async () => {
    const { url, admin } = await teamDatabase();
    const maxRequestMs = 1500;
    const a = desk('desk-a', url, { maxRequestMs });
    const b = desk('desk-b', url, { maxRequestMs });
    // Desk A takes the whole budget, sends, and dies before any answer: its sessions are killed, its pool gone.
    for (let i = 0; i < 10; i++) await a.budget.reserve('create');
    expect(await killSessions(admin, 'desk-a')).toBeGreaterThan(0);
    await a.close();
    desks.splice(desks.indexOf(a), 1);

    const slot = await b.budget.reserve('create');
    await slot.end('answered');
    const held = await slots(admin, 'desk-a');
    const [taken] = await slots(admin, 'desk-b');
    expect(held).toHaveLength(10);
    // B needed one slot: the first A reserved, free at its reservation + maxRequestMs + window + margin.
    expect(taken!.reservedAt - held[0]!.reservedAt).toBeGreaterThanOrEqual(maxRequestMs + 1000 + 5);
  });

  it('gives ended slots back a window after they ended, pauses every desk after a 429, and takes unsent ones back at once', async () => {
    const { url, admin } = await teamDatabase();
    // Long request lives: nothing in this test frees by expiry, whatever the machine's speed.
    const a = desk('desk-a', url, { maxRequestMs: 60_000 });
    const b = desk('desk-b', url, { maxRequestMs: 60_000 });

    const taken = [];
    for (let i = 0; i < 10; i++) taken.push(await a.budget.reserve('create'));
    expect((await b.budget.usage()).inWindow).toBe(10);
    // Unsent: back at once, so B gets it while the other nine are still in flight.
    await taken.pop()!.end('not-sent');
    const unsent = await b.budget.reserve('create');
    expect((await a.budget.usage()).inWindow).toBe(10);

    // A's nine answer; the 429 of one of them pauses every desk 1500 ms from its end (longer than a window, so
    // B's next slot shows whether the pause held it).
    for (const [i, s] of taken.entries()) await (i === 4 ? s.end('rate-limited', 1500) : s.end('answered'));
    await unsent.end('answered');
    const next = await b.budget.reserve('create');
    await next.end('answered');

    const ofA = await slots(admin, 'desk-a');
    const ofB = await slots(admin, 'desk-b');
    expect(ofA).toHaveLength(9);
    // Ten were live (nine of A + the unsent one given to B), so B's next waited for the first of them to end a
    // window + margin ago; and for the pause.
    const firstEnded = Math.min(...ofA.map((s) => s.endedAt!));
    expect(ofB[1]!.reservedAt - firstEnded).toBeGreaterThanOrEqual(1005);
    expect(ofB[1]!.reservedAt - ofA[4]!.endedAt!).toBeGreaterThanOrEqual(1500);
  });

  it("lets a desk count its own answered slots with its floor, never another desk's nor an unanswered one", async () => {
    const { url } = await teamDatabase();
    const a = desk('desk-a', url, { maxRequestMs: 60_000 });
    const b = desk('desk-b', url, { maxRequestMs: 60_000 });
    const taken = [];
    for (let i = 0; i < 10; i++) taken.push(await a.budget.reserve('create'));
    for (const [i, s] of taken.entries()) await s.end(i === 0 ? 'no-answer' : i === 1 ? 'rate-limited' : 'answered');
    // A floor of a whole window + margin ends an answered slot the moment it ended: only the unanswered one
    // still counts for A; for B all ten do.
    expect((await a.budget.usage({ ownFloorMs: 1005 })).inWindow).toBe(1);
    expect((await b.budget.usage({ ownFloorMs: 1005 })).inWindow).toBe(10);
    expect((await a.budget.usage()).inWindow).toBe(10);
  });

  it('keeps two slots from reads for creates: status polls of other desks cannot fill the window', async () => {
    const { url } = await teamDatabase();
    const a = desk('desk-a', url, { maxRequestMs: 60_000 });
    const b = desk('desk-b', url, { maxRequestMs: 60_000 });
    for (let i = 0; i < 8; i++) await a.budget.reserve('status');
    const controller = new AbortController();
    const read = b.budget.reserve('status', { signal: controller.signal });
    // The read waits (8 live = its allowance), while a create is granted at once.
    const create = await b.budget.reserve('create');
    expect((await b.budget.usage()).inWindow).toBe(9);
    controller.abort();
    await expect(read).rejects.toThrow();
    await create.end('not-sent');
  });
});
