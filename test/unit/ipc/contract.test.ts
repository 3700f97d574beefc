import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  EVENT_CHANNELS,
  IPC_CHANNELS,
  IPC_METHODS,
  type ArgsOf,
  type DeskApi,
  type Money,
  type Result,
  type ResultOf,
} from '../../../contract/api';

describe('IPC contract', () => {
  it('names every channel area:verb, unique, with no collision with event channels', () => {
    expect(new Set(IPC_CHANNELS).size).toBe(IPC_CHANNELS.length);
    for (const channel of IPC_CHANNELS) expect(channel).toMatch(/^[a-z]+:[a-zA-Z]+$/);
    for (const event of Object.values(EVENT_CHANNELS)) expect(IPC_CHANNELS).not.toContain(event);
    const counted = Object.values(IPC_METHODS).reduce((n, verbs) => n + verbs.length, 0);
    expect(IPC_CHANNELS.length).toBe(counted);
  });

  it('derives window.desk method types from the contract', () => {
    expectTypeOf<DeskApi['profiles']['list']>().toEqualTypeOf<() => Promise<Result<ResultOf<'profiles:list'>>>>();
    expectTypeOf<Parameters<DeskApi['payouts']['create']>[0]>().toEqualTypeOf<ArgsOf<'payouts:create'>>();
    expectTypeOf<ResultOf<'balances:pending'>>().toEqualTypeOf<Money[]>();
    expectTypeOf<ReturnType<DeskApi['events']['batchProgress']>>().toEqualTypeOf<() => void>();
  });
});
