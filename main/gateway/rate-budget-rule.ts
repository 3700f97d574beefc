// The rule of a gateway rate budget shared by the desks of a team (the store that keeps the slots is
// main/store/postgres/rate-budget.ts), beside the desk limiter (rate-limiter.ts) whose rule it extends.
//
// On the database server's clock only (clock_timestamp(); desks' clocks never meet, only their
// durations matter). Slot k is reserved at s_k, before the desk sends (s_k ≤ send r_k), and ended at e_k,
// after the desk saw the answer (e_k ≥ answer a_k). The gateway stamps it in [r_k, a_k] ⊆ [s_k, e_k]. Two
// slots m, n (m reserved first) can share a gateway window only if e_m > s_n − windowMs. So a slot is live
//  - while in flight: until s + maxRequestMs + windowMs + marginMs (the desk must abort its request by
//    maxRequestMs after it asked for the slot: BudgetSlot.signal; an unanswered request keeps the old
//    worst-case rule of main/gateway/rate-limiter.ts, live a window after it ended);
//  - once ended: until e + windowMs + marginMs;
// and a new slot is granted, under pg_advisory_xact_lock(merchant), when fewer than `limit` are live. This is
// the desk limiter's worst-case rule (F = 0) across desks. A desk may pass its learned floor (ownFloorMs, a
// lower bound on its request + answer legs): it then counts its own answered slots that much shorter, which is
// safe for pairs of one desk's slots only (decide()); deskId must therefore be unique per desk. Without it,
// over a slow network the team is slower than one desk alone (docs/gateway-notes.md, "Rate limit shared by a
// team").
// What it trusts: the database server's wall clock not stepping forward (NTP) by much while slots are live (a
// step back only holds slots longer); and, as the desk limiter does, a request ended without an answer not being
// stamped more than a margin after the desk gave it up.
// Lanes: reads (status, list) leave `readHeadroom` slots to tokens and creates, so polls from other desks
// cannot take the whole window from a sender. A 429 seen by any desk pauses every desk for Retry-After.
import type { Lane } from './rate-limiter';

export interface BudgetRules {
  /** Requests the gateway accepts per window (10). */
  limit: number;
  windowMs: number;
  /** Safety on every slot's end of life (the gateway's clock granularity, the database's). */
  marginMs: number;
  /** How long a request may live from reserve() until it is aborted (≥ the transport's timeout). */
  maxRequestMs: number;
  /** Slots the read lanes (status, list) leave to tokens and creates. */
  readHeadroom: number;
}

/**
 * A live slot as the database sees it: its end of life (ms on the database's clock), whether it ended, and
 * whether it is this desk's own and ended with an answer (only then may the desk's floor apply: a request
 * without an answer may be stamped up to its end).
 */
export interface LiveSlot {
  liveUntil: number;
  ended: boolean;
  ownAnswered?: boolean;
  /** This desk's slot (answered or not). */
  own?: boolean;
}

/**
 * Desks other than this one that asked for a slot and were refused lately. While there are some, this desk
 * takes no more than its share of the lane's allowance: the budget is otherwise first come at each slot's
 * end, and a desk whose requests come back first (its own floor, a shorter network) takes every slot while
 * it has work, leaving the others none.
 */
export interface BudgetShare {
  otherDesksWaiting: number;
}

export type BudgetDecision = { grant: true } | { grant: false; waitMs: number };

/** Slots a lane may fill: reads stop short of the limit by the headroom (always at least one). */
export function laneAllowance(lane: Lane, rules: BudgetRules): number {
  const headroom = lane === 'status' || lane === 'list' ? rules.readHeadroom : 0;
  return Math.max(1, rules.limit - headroom);
}

/**
 * Whether a slot may be granted now, else the least time until one can be: the pause, or the moment enough
 * live slots stop being live. An in-flight slot stops no sooner than a window + margin from now (if it ended
 * this instant) and no later than its own expiry, so the wait never skips a chance; the caller asks again.
 *
 * `ownFloorMs` (≥ 0, default 0): a lower bound on this desk's request leg + answer leg (A + B), e.g. the desk
 * limiter's learned floor. Only this desk's own ended slots end that much earlier: for two slots m, n of one
 * desk the stamps are ≥ s_n + A and ≤ e_m − B, so e_m − F ≤ s_n − window keeps them a window apart. Across
 * desks it would mix one desk's answer leg with another's request leg, which neither measures: not applied.
 */
export function decide(now: number, live: readonly LiveSlot[], pausedUntil: number | null, lane: Lane, rules: BudgetRules, ownFloorMs = 0, share: BudgetShare = { otherDesksWaiting: 0 }): BudgetDecision {
  if (pausedUntil !== null && pausedUntil > now) return { grant: false, waitMs: Math.max(1, Math.ceil(pausedUntil - now)) };
  const floor = Math.max(0, ownFloorMs);
  const until = (s: LiveSlot) => liveUntil(s, floor);
  const taken = live.filter((s) => until(s) > now);
  const allowed = laneAllowance(lane, rules);
  if (share.otherDesksWaiting > 0) {
    // Others wait: this desk's share, at least one slot; asked again when its own oldest slot stops counting.
    const fair = Math.max(1, Math.floor(allowed / (1 + share.otherDesksWaiting)));
    const mine = taken.filter((s) => s.own);
    if (mine.length >= fair) {
      const soonest = now + Math.max(rules.marginMs, rules.windowMs + rules.marginMs - floor);
      const frees = mine.map((s) => (s.ended ? until(s) : Math.min(s.liveUntil, soonest))).sort((a, b) => a - b);
      return { grant: false, waitMs: Math.max(1, Math.ceil(frees[mine.length - fair]! - now)) };
    }
  }
  if (taken.length < allowed) return { grant: true };
  // In flight: it may end this instant, with an answer, and be ours (the floor applies): the wait is only when
  // to look again, so it takes the earliest of these (looking early costs a round trip, never a 429).
  // (At least a margin: a floor near a window must not turn waiting for in-flight answers into a busy loop.)
  const soonest = now + Math.max(rules.marginMs, rules.windowMs + rules.marginMs - floor);
  const frees = taken.map((s) => (s.ended ? until(s) : Math.min(s.liveUntil, soonest))).sort((a, b) => a - b);
  const at = frees[taken.length - allowed]!;
  return { grant: false, waitMs: Math.max(1, Math.ceil(at - now)) };
}

/** When a slot stops counting for a desk whose floor is `floorMs` (its own answered slots end earlier). */
export function liveUntil(slot: LiveSlot, floorMs: number): number {
  return slot.ended && slot.ownAnswered ? slot.liveUntil - Math.max(0, floorMs) : slot.liveUntil;
}

/** The live time of an in-flight slot from its reservation (ms). */
export function inFlightLifeMs(rules: BudgetRules): number {
  return rules.maxRequestMs + rules.windowMs + rules.marginMs;
}

/** The live time of an ended slot from its end (ms). */
export function endedLifeMs(rules: BudgetRules): number {
  return rules.windowMs + rules.marginMs;
}

/** The key of one merchant's budget: base URL (no trailing slash) + merchant, as RateLimiterRegistry keys its limiters (a space apart: PostgreSQL text holds no NUL, and a URL no space). */
export function budgetKey(baseUrl: string, merchantCode: string): string {
  return `${baseUrl.replace(/\/+$/, '')} ${merchantCode}`;
}
