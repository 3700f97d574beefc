// The team rate budget's rule without a database: when a slot may be granted, how long to wait otherwise, and,
// on a fake clock, that desks following it never put more than `limit` gateway stamps in any window wherever
// in [reserved, ended] the gateway stamps each request.
import { describe, expect, it } from 'vitest';
import type { Lane } from '../../../main/gateway/rate-limiter';
import { budgetKey, decide, endedLifeMs, inFlightLifeMs, laneAllowance, liveUntil, type BudgetRules, type LiveSlot } from '../../../main/gateway/rate-budget-rule';
import { isConnectionError } from '../../../main/store/postgres/connection-error';

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

  it("ends this desk's own answered slots its floor earlier, and no one else's", () => {
    const mine = Array.from({ length: 10 }, (_, i): LiveSlot => ({ liveUntil: 900 + i, ended: true, ownAnswered: true }));
    expect(decide(0, mine, null, 'create', rules, 0)).toEqual({ grant: false, waitMs: 900 });
    expect(decide(0, mine, null, 'create', rules, 300)).toEqual({ grant: false, waitMs: 600 });
    expect(decide(600, mine, null, 'create', rules, 300)).toEqual({ grant: true });
    const theirs = mine.map((s) => ({ ...s, ownAnswered: false }));
    expect(decide(600, theirs, null, 'create', rules, 300)).toEqual({ grant: false, waitMs: 300 });
    // In flight, whoever's: looked at again after window + margin − floor at the soonest.
    expect(decide(0, Array.from({ length: 10 }, () => inFlight(3005)), null, 'create', rules, 300)).toEqual({ grant: false, waitMs: 705 });
    expect(liveUntil({ liveUntil: 900, ended: true, ownAnswered: true }, -50)).toBe(900);
    // A floor of a window or more still waits a margin for in-flight answers, not a busy loop.
    expect(decide(0, Array.from({ length: 10 }, () => inFlight(3005)), null, 'create', rules, 1500)).toEqual({ grant: false, waitMs: 5 });
  });

  it('keeps a desk to its share while other desks wait, and to none of it when nobody else does', () => {
    const mine = (liveUntil: number): LiveSlot => ({ liveUntil, ended: true, own: true });
    const five = Array.from({ length: 5 }, (_, i) => mine(300 + i));
    // Half the budget is free, but one other desk waits: five of ten is this desk's share.
    expect(decide(0, five, null, 'create', rules, 0, { otherDesksWaiting: 1 })).toEqual({ grant: false, waitMs: 300 });
    expect(decide(0, five.slice(1), null, 'create', rules, 0, { otherDesksWaiting: 1 })).toEqual({ grant: true });
    // Nobody else waits: the whole budget.
    expect(decide(0, five, null, 'create', rules)).toEqual({ grant: true });
    // Three others wait: a share of two (10 / 4, rounded down), never less than one.
    expect(decide(0, five.slice(0, 2), null, 'create', rules, 0, { otherDesksWaiting: 3 })).toMatchObject({ grant: false });
    expect(decide(0, [], null, 'create', rules, 0, { otherDesksWaiting: 20 })).toEqual({ grant: true });
    // Other desks' slots do not count against this desk's share, only against the limit.
    expect(decide(0, Array.from({ length: 9 }, () => ended(500)), null, 'create', rules, 0, { otherDesksWaiting: 1 })).toEqual({ grant: true });
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
  desk: number;
  reservedAt: number;
  endedAt: number;
  answered: boolean;
}

interface SimDesk {
  /** Least request leg (reservation to stamp) and least answer leg (stamp to end), ms. */
  requestLegMs: number;
  answerLegMs: number;
  /** The floor this desk passes as ownFloorMs (its true A + B, or 0 for the worst-case rule). */
  floorMs: number;
}

/**
 * Desks' workers on one fake clock (the database's): each asks for a slot, holds it for its desk's legs plus up
 * to 200 ms of jitter on each (some never answered until their abort at maxRequestMs), and the gateway stamps
 * the request anywhere between the least request leg after the reservation and the least answer leg before the
 * end. Requests are granted one at a time, as under the advisory lock.
 */
function simulate(seed: number, workers: number, until: number, desks: SimDesk[]): { stamps: number[]; granted: number } {
  const random = prng(seed);
  const slots: SimSlot[] = [];
  const stamps: number[] = [];
  let next = Array.from({ length: workers }, () => random() * 50);
  for (;;) {
    const t = Math.min(...next);
    if (t >= until) break;
    const w = next.indexOf(t);
    const d = w % desks.length;
    const desk = desks[d]!;
    const live = slots.map(
      (s): LiveSlot =>
        t < s.endedAt ? inFlight(s.reservedAt + inFlightLifeMs(rules)) : { liveUntil: s.endedAt + endedLifeMs(rules), ended: true, ownAnswered: s.desk === d && s.answered },
    );
    const lane: Lane = random() < 0.3 ? 'status' : 'create';
    const decision = decide(t, live, null, lane, rules, desk.floorMs);
    if (decision.grant) {
      const answered = random() >= 0.05;
      const stampAt = t + desk.requestLegMs + random() * 200;
      const endedAt = answered ? stampAt + desk.answerLegMs + random() * 200 : t + rules.maxRequestMs;
      slots.push({ desk: d, reservedAt: t, endedAt, answered });
      // An unanswered request may be stamped any time from its least request leg up to its abort.
      stamps.push(answered ? stampAt : t + desk.requestLegMs + random() * (rules.maxRequestMs - desk.requestLegMs));
      next[w] = endedAt;
    } else {
      next[w] = t + decision.waitMs;
    }
    next = [...next];
  }
  return { stamps: stamps.sort((a, b) => a - b), granted: slots.length };
}

function maxInWindow(stamps: readonly number[]): number {
  let best = 0;
  for (let i = 0, j = 0; i < stamps.length; i++) {
    while (stamps[i]! - stamps[j]! >= rules.windowMs) j++;
    best = Math.max(best, i - j + 1);
  }
  return best;
}

describe('the rule on a fake clock', () => {
  const symmetric = (ms: number, floor: boolean): SimDesk => ({ requestLegMs: ms, answerLegMs: ms, floorMs: floor ? 2 * ms : 0 });

  it('never lets more than the limit be stamped in any window, over 100 seeded runs of 2–11 workers', () => {
    let total = 0;
    for (let seed = 1; seed <= 100; seed++) {
      const { stamps, granted } = simulate(seed, 2 + (seed % 4) * 3, 30_000, [symmetric(0, false), symmetric(50, false)]);
      expect(maxInWindow(stamps)).toBeLessThanOrEqual(rules.limit);
      total += granted;
      // Every slot comes back within window + margin + the longest round trip: well above a third of the limit.
      expect(granted).toBeGreaterThan((rules.limit * 30_000) / (rules.windowMs + rules.marginMs + rules.maxRequestMs));
    }
    expect(total).toBeGreaterThan(100 * 150);
  });

  it("applies a desk's own floor to its own answered slots only, even when the desks' legs are lopsided", () => {
    // Desk 0's requests are slow and its answers instant, desk 1 the other way round: each one's floor is
    // 300 ms, but a slot of desk 0 followed by one of desk 1 can be stamped with no leg between them.
    const lopsided: SimDesk[] = [
      { requestLegMs: 300, answerLegMs: 0, floorMs: 300 },
      { requestLegMs: 0, answerLegMs: 300, floorMs: 300 },
    ];
    let withFloor = 0;
    let without = 0;
    for (let seed = 1; seed <= 50; seed++) {
      const run = simulate(seed, 24, 20_000, lopsided);
      expect(maxInWindow(run.stamps)).toBeLessThanOrEqual(rules.limit);
      withFloor += run.granted;
      without += simulate(seed, 24, 20_000, lopsided.map((d) => ({ ...d, floorMs: 0 }))).granted;
    }
    // The floor buys throughput (same-desk pairs), and is worth having.
    expect(withFloor).toBeGreaterThan(without * 1.05);
  });
});
