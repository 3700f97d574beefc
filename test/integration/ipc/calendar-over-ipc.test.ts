// The calendar over IPC against the demo sandbox (the same handler map the window calls): a payout and a batch
// scheduled with a release time in a named zone wait, show on the calendar with the funding forecast, move and cancel
// before release; a time in the past, one the clocks skip, or a zone that does not exist is refused, nothing stored.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ArgsOf, IpcHandlerMap } from '../../../contract/api';
import { createAppContext, type AppContext } from '../../../main/context';
import { DemoMode } from '../../../main/demo/demo-mode';
import { bindActiveProfile, createDeskServices } from '../../../main/desk';
import { createDeskEvents, type DeskEvents } from '../../../main/desk/events';
import { createIpcHandlers } from '../../../main/ipc/handlers';
import { createDeskRuntime, type DeskRuntime } from '../../../main/desk/runtime';
import { MemoryKeyStore } from '../../../main/keys/key-store';
import { createCapturingLogger } from '../../../main/log';
import { callerOf } from './ipc-helpers';

let home = '';
let ctx: AppContext;
let runtime: DeskRuntime;
let demo: DemoMode;
let events: DeskEvents;
let handlers: IpcHandlerMap;
const call = callerOf(() => handlers);
const changes: string[] = [];

const payout = (idPayout: string, overrides: Partial<ArgsOf<'payouts:create'>> = {}): ArgsOf<'payouts:create'> => ({
  idPayout, amount: '1250.50', currencyCode: 'EUR', accountName: 'Jane Doe', accountNumber: 'DE89370400440532013000',
  paymentOperatorCode: 'EU_SEPA', emailAddress: 'jane@example.com', ...overrides,
});
const nextYear = new Date().getUTCFullYear() + 1;

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'desk-calendar-'));
  ctx = createAppContext({ home, keyStore: new MemoryKeyStore(), logger: createCapturingLogger() });
  events = createDeskEvents();
  events.on('schedulesChanged', (e) => changes.push(`${e.change} ${e.subject.kind}`));
  runtime = createDeskRuntime({ ctx, events, log: createCapturingLogger() });
  demo = new DemoMode({ ctx, log: createCapturingLogger() });
  handlers = createIpcHandlers(bindActiveProfile(createDeskServices(runtime, { name: 'Payout Desk', version: 'test', platform: process.platform, demoAvailable: true }, demo), ctx), { log: createCapturingLogger() });
  await call('profiles:createDemo');
  await call('settings:update', { timeZone: 'Europe/Berlin' });
});

afterAll(async () => {
  await runtime?.close();
  await demo?.close();
  ctx?.close();
  await rm(home, { recursive: true, force: true });
});

describe('the calendar over IPC', () => {
  it('schedules a payout in the profile zone: stored held, not sent, on the calendar', async () => {
    const detail = await call('payouts:create', payout('cal-p1', { executeOn: { local: `${nextYear}-07-01T09:00` } }));
    expect(detail.status).toBe('HELD');
    const s = await call('schedules:get', { kind: 'payout', id: 'cal-p1' });
    expect(s).toMatchObject({ state: 'SCHEDULED', zone: 'Europe/Berlin', local: `${nextYear}-07-01T09:00`, executeAt: `${nextYear}-07-01T07:00:00.000Z`, title: 'Jane Doe', subjectState: 'HELD' });
    expect(s.totals).toEqual([{ money: { amount: '1250.50', currencyCode: 'EUR' }, count: 1 }]);
    expect(changes).toContain('scheduled payout');
  });

  it('refuses a time in the past, a skipped time and an unknown zone, storing nothing', async () => {
    const refused = async (id: string, executeOn: { local: string; zone?: string }) => {
      const r = await handlers['payouts:create'](payout(id, { executeOn }));
      expect(r.ok).toBe(false);
      expect(await handlers['schedules:get']({ kind: 'payout', id })).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
      return r.ok ? '' : `${r.error.code}: ${r.error.message}`;
    };
    expect(await refused('cal-past', { local: '2020-01-01T09:00' })).toMatch(/^BAD_EXECUTE_ON: .*is not ahead of now/);
    expect(await refused('cal-gap', { local: `${nextYear}-03-${lastSunday(nextYear, 3)}T02:30` })).toMatch(/^BAD_EXECUTE_ON: .*does not exist in Europe\/Berlin/);
    expect(await refused('cal-zone', { local: `${nextYear}-07-01`, zone: 'Mars/Olympus' })).toMatch(/^BAD_EXECUTE_ON: .*not a time zone name/);
    expect(await refused('cal-text', { local: 'next friday' })).toMatch(/^INVALID_ARGUMENT/);
  });

  it("validates a dated payout as create will: its time checked, and not held to today's balance", async () => {
    const { idPayout: _id, ...fields } = payout('x', { amount: '900000.00' });
    const now = await call('payouts:validate', fields);
    expect(now.valid).toBe(false);
    expect(now.issues.map((i) => i.code)).toContain('INSUFFICIENT_BALANCE');
    const dated = await call('payouts:validate', { ...fields, executeOn: { local: `${nextYear}-09-01` } });
    expect(dated).toMatchObject({ valid: true, issues: [] });
    const past = await call('payouts:validate', { ...fields, executeOn: { local: '2020-09-01' } });
    expect(past.issues).toEqual([expect.objectContaining({ field: 'executeOn', code: 'IN_THE_PAST' })]);
  });

  it('lists the month with the funding forecast; moves and cancels before release', async () => {
    await call('payouts:create', payout('cal-p2', { amount: '10.00', executeOn: { local: `${nextYear}-07-03`, zone: 'America/New_York' } }));
    const list = await call('schedules:list', { from: `${nextYear}-07-01T00:00:00Z`, to: `${nextYear}-08-01T00:00:00Z` });
    expect(list.zone).toBe('Europe/Berlin');
    expect(list.items.map((i) => [i.id, i.when])).toEqual([
      ['cal-p1', `${nextYear}-07-01 09:00 Europe/Berlin`],
      ['cal-p2', `${nextYear}-07-03 08:00 America/New_York`],
    ]);
    expect(list.forecast.map((l) => [l.date, l.currencyCode, l.due.amount, l.cumulative.amount])).toEqual([
      [`${nextYear}-07-01`, 'EUR', '1250.50', '1250.50'],
      [`${nextYear}-07-03`, 'EUR', '10.00', '1260.50'],
    ]);
    const moved = await call('schedules:move', { kind: 'payout', id: 'cal-p2', executeOn: { local: `${nextYear}-07-10T14:00` } });
    expect(moved).toMatchObject({ state: 'SCHEDULED', when: `${nextYear}-07-10 14:00 Europe/Berlin` });
    const cancelled = await call('schedules:cancel', { kind: 'payout', id: 'cal-p2', reason: 'paid by hand' });
    expect(cancelled).toMatchObject({ state: 'CANCELLED', subjectState: 'DISCARDED' });
    const again = await handlers['schedules:move']({ kind: 'payout', id: 'cal-p2', executeOn: { local: `${nextYear}-07-11` } });
    expect(again).toMatchObject({ ok: false, error: { code: 'BAD_STATE' } });
    expect(changes).toEqual(expect.arrayContaining(['moved payout', 'cancelled payout']));
  });
});

/** The day of the month of the last Sunday of `month` (Europe's spring-forward day in March). */
function lastSunday(year: number, month: number): string {
  const last = new Date(Date.UTC(year, month, 0));
  return String(last.getUTCDate() - last.getUTCDay()).padStart(2, '0');
}
