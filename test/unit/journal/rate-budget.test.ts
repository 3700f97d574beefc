// The team rate budget's rule without a database: when a slot may be granted, how long to wait otherwise, and,
// on a fake clock, that desks following it never put more than `limit` gateway stamps in any window wherever
// in [reserved, ended] the gateway stamps each request.
import { describe, expect, it } from 'vitest';
import type { Lane } from '../../../main/gateway/rate-limiter';
import { budgetKey, decide, endedLifeMs, inFlightLifeMs, isConnectionError, laneAllowance, type BudgetRules, type LiveSlot } from '../../../main/journal/pg/rate-budget';

const rules: BudgetRules = { limit: 10, windowMs: 1000, marginMs: 5, maxRequestMs: 2000, readHeadroom: 2 };

const ended = (liveUntil: number): LiveSlot => ({ liveUntil, ended: true });
const inFlight = (liveUntil: number): LiveSlot => ({ liveUntil, ended: false });

describe('decide', () => {
  it('grants while fewer than the limit are live, and does not count slots past their life', () => {
    expect(decide(0, Array.from({ length: 9 }, () => ended(500)), null, 'create', rules)).toEqual({ grant: true });
    const full = Array.from({ length: 10 }, (_, i) => ended(100 + i));
    expect(decide(0, full, null, 'create', rules)).toEqual({ grant: false, waitMs: 100 });
    expect(decide(100, full, null, 'create', rules)).toEqual({ grant: true });
  });

  it('waits for the first slot to free when ended ones are full, and at least a window + margin for in-flight ones', () => {
    const full = [...Array.from({ length: 5 }, () => inFlight(3005)), ...Array.from({ length: 5 }, (_, i) => ended(700 + i))];
    expect(decide(0, full, null, 'create', rules)).toEqual({ grant: false, waitMs: 700 });
    const allInFlight = Array.from({ length: 10 }, () => inFlight(3005));
    expect(decide(0, allInFlight, null, 'create', rules)).toEqual({ grant: false, waitMs: 1005 });
    // An in-flight slot about to expire frees at its expiry, not later.
    expect(decide(0, [...allInFlight.slice(1), inFlight(40)], null, 'create', rules)).toEqual({ grant: false, waitMs: 40 });
  });

  it('keeps the headroom from reads: status and list stop two short of the limit, creates and tokens do not', () => {
    const eight = Array.from({ length: 8 }, (_, i) => ended(300 + i * 10));
    for (const lane of ['status', 'list'] as Lane[]) expect(decide(0, eight, null, lane, rules)).toEqual({ grant: false, waitMs: 300 });
    for (const lane of ['token', 'create'] as Lane[]) expect(decide(0, eight, null, lane, rules)).toEqual({ grant: true });
    // Ten live, a read needs three to free.
    const ten = Array.from({ length: 10 }, (_, i) => ended(300 + i * 10));
    expect(decide(0, ten, null, 'status', rules)).toEqual({ grant: false, waitMs: 320 });
    expect(laneAllowance('status', { ...rules, limit: 2 })).toBe(1);
  });

  it('holds every lane while a 429 pause lasts', () => {
    expect(decide(1000, [], 1250.2, 'token', rules)).toEqual({ grant: false, waitMs: 251 });
    expect(decide(1251, [], 1250.2, 'token', rules)).toEqual({ grant: true });
  });

  it('keys budgets as the desk limiter registry does', () => {
    expect(budgetKey('https://gw.example/', 'M-1')).toBe(budgetKey('https://gw.example', 'M-1'));
    expect(budgetKey('https://gw.example', 'M-1')).not.toBe(budgetKey('https://gw.example', 'M-2'));
  });

  it('tells broken connections from other errors', () => {
    expect(isConnectionError(Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }))).toBe(true);
    expect(isConnectionError(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(isConnectionError(Object.assign(new Error('relation "x" does not exist'), { code: '42P01' }))).toBe(false);
  });
});

/** Seeded generator (mulberry32) for the fake-clock runs. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface SimSlot {
  reservedAt: number;
  endedAt: number;
}

/**
 * Desks' workers on one fake clock (the database's): each asks for a slot, holds it for a random round trip
 * (some never answered until their abort at maxRequestMs), and the gateway stamps the request anywhere in
 * [reserved, ended]. Requests are granted one at a time, as under the advisory lock.
 */
function simulate(seed: number, workers: number, until: number): { stamps: number[]; granted: number } {
  const random = prng(seed);
  const slots: SimSlot[] = [];
  const stamps: number[] = [];
  let next = Array.from({ length: workers }, () => random() * 50);
  for (;;) {
    const t = Math.min(...next);
    if (t >= until) break;
    const w = next.indexOf(t);
    const live = slots.map((s): LiveSlot => (t < s.endedAt ? inFlight(s.reservedAt + inFlightLifeMs(rules)) : ended(s.endedAt + endedLifeMs(rules))));
    const lane: Lane = random() < 0.3 ? 'status' : 'create';
    const decision = decide(t, live, null, lane, rules);
    if (decision.grant) {
      const roundTrip = random() < 0.05 ? rules.maxRequestMs : random() * 400;
      const slot = { reservedAt: t, endedAt: t + roundTrip };
      slots.push(slot);
      stamps.push(slot.reservedAt + random() * roundTrip);
      next[w] = slot.endedAt;
    } else {
      next[w] = t + decision.waitMs;
    }
    next = [...next];
  }
  return { stamps: stamps.sort((a, b) => a - b), granted: slots.length };
}

describe('the rule on a fake clock', () => {
  it('never lets more than the limit be stamped in any window, over 100 seeded runs of 2–11 workers', () => {
    let total = 0;
    for (let seed = 1; seed <= 100; seed++) {
      const { stamps, granted } = simulate(seed, 2 + (seed % 4) * 3, 30_000);
      for (let i = 0; i + rules.limit < stamps.length; i++) expect(stamps[i + rules.limit]! - stamps[i]!).toBeGreaterThanOrEqual(rules.windowMs);
      total += granted;
      // Every slot comes back within window + margin + the longest round trip: well above half the limit.
      expect(granted).toBeGreaterThan((rules.limit * 30_000) / (rules.windowMs + rules.marginMs + rules.maxRequestMs));
    }
    expect(total).toBeGreaterThan(100 * 150);
  });
});
