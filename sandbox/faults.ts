// Fault injection. Every fault is deterministic for tests: counters ("fail the next N creates") are consumed
// first, then probabilities are drawn from a seeded generator, so a given seed replays the same faults.
import { z } from 'zod';

const Probability = z.number().min(0).max(1);
const Count = z.number().int().min(0);

export const FaultConfigSchema = z
  .object({
    /** Request leg: every API request (not /_sandbox routes) waits this long before it is handled. */
    latencyMs: Count,
    /** A uniformly drawn 0..latencyJitterMs is added on top of latencyMs. */
    latencyJitterMs: Count,
    /**
     * Answer leg: every API answer waits this long (plus 0..answerLatencyJitterMs) before it is sent,
     * drawn separately from the request leg. null (the default): the same as latencyMs.
     */
    answerLatencyMs: Count.nullable(),
    /** null (the default): the same as latencyJitterMs. */
    answerLatencyJitterMs: Count.nullable(),
    /**
     * Stalls: the last stallForMs of every stallEveryMs (counted from when the switch was set) the
     * gateway takes nothing in; a request arriving then waits until the stall ends. 0 = never.
     */
    stallEveryMs: Count,
    stallForMs: Count,
    /** The next N create calls (payin or payout) answer 500 and store nothing. */
    failBeforeStoreNext: Count,
    /** The next N create calls store the payment, then answer 500. */
    failAfterStoreNext: Count,
    /** The next N create calls store the payment, then destroy the connection without an answer. */
    dropAfterStoreNext: Count,
    failBeforeStoreProbability: Probability,
    failAfterStoreProbability: Probability,
    dropAfterStoreProbability: Probability,
    /** Adds unknown properties to every object of every successful API response. */
    extraProperties: z.boolean(),
    /** Shuffles the property order of every object of every successful API response. */
    reorderProperties: z.boolean(),
    /** Seed of the generator behind probabilities, jitter and extra properties. */
    seed: z.number().int(),
  })
  .strict();

export type FaultConfig = z.output<typeof FaultConfigSchema>;

/** A patch of faults: only the named fields change. */
export const FaultPatchSchema = FaultConfigSchema.partial();

export const NO_FAULTS: FaultConfig = {
  latencyMs: 0,
  latencyJitterMs: 0,
  answerLatencyMs: null,
  answerLatencyJitterMs: null,
  stallEveryMs: 0,
  stallForMs: 0,
  failBeforeStoreNext: 0,
  failAfterStoreNext: 0,
  dropAfterStoreNext: 0,
  failBeforeStoreProbability: 0,
  failAfterStoreProbability: 0,
  dropAfterStoreProbability: 0,
  extraProperties: false,
  reorderProperties: false,
  seed: 1,
};

export const CREATE_FAULTS = ['none', 'fail-before-store', 'fail-after-store', 'drop-after-store'] as const;
export type CreateFault = (typeof CREATE_FAULTS)[number];

/** mulberry32: tiny, fast, good enough for test faults; never used for anything secret. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

export class FaultController {
  private config: FaultConfig;
  private random: () => number;
  /** Answer legs draw from their own generator, so switching them on does not change any other fault's draws. */
  private answerRandom: () => number;
  /** Where the stall cycle starts: when a stall switch was last set. */
  private stallOrigin: number;

  constructor(
    initial: Partial<FaultConfig> = {},
    private readonly now: () => number = Date.now,
  ) {
    this.config = { ...NO_FAULTS, ...FaultPatchSchema.parse(initial) };
    this.random = seededRandom(this.config.seed);
    this.answerRandom = seededRandom(~this.config.seed);
    this.stallOrigin = this.now();
  }

  /** Merges a patch into the current faults; a seed in the patch restarts the generators. */
  update(patch: Partial<FaultConfig>): FaultConfig {
    const checked = FaultPatchSchema.parse(patch);
    this.config = { ...this.config, ...checked };
    if (checked.seed !== undefined) {
      this.random = seededRandom(checked.seed);
      this.answerRandom = seededRandom(~checked.seed);
    }
    if (checked.stallEveryMs !== undefined || checked.stallForMs !== undefined) this.stallOrigin = this.now();
    return this.current();
  }

  current(): FaultConfig {
    return { ...this.config };
  }

  /** Delay of one request leg (before the request is handled). */
  latencyMs(): number {
    const { latencyMs, latencyJitterMs } = this.config;
    if (latencyJitterMs === 0) return latencyMs;
    return latencyMs + Math.floor(this.random() * (latencyJitterMs + 1));
  }

  /** Delay of one answer leg (before the answer is sent), drawn independently of the request leg. */
  answerLatencyMs(): number {
    const base = this.config.answerLatencyMs ?? this.config.latencyMs;
    const jitter = this.config.answerLatencyJitterMs ?? this.config.latencyJitterMs;
    if (jitter === 0) return base;
    return base + Math.floor(this.answerRandom() * (jitter + 1));
  }

  /** How long a request arriving now waits for the current stall to end (0 outside stalls). */
  stallWaitMs(): number {
    const { stallEveryMs, stallForMs } = this.config;
    if (stallEveryMs <= 0 || stallForMs <= 0) return 0;
    const stallFor = Math.min(stallForMs, stallEveryMs);
    const phase = (((this.now() - this.stallOrigin) % stallEveryMs) + stallEveryMs) % stallEveryMs;
    return phase >= stallEveryMs - stallFor ? stallEveryMs - phase : 0;
  }

  /** Decides the fault of one create call; counters win over probabilities. */
  nextCreateFault(): CreateFault {
    const c = this.config;
    if (c.failBeforeStoreNext > 0) {
      c.failBeforeStoreNext -= 1;
      return 'fail-before-store';
    }
    if (c.failAfterStoreNext > 0) {
      c.failAfterStoreNext -= 1;
      return 'fail-after-store';
    }
    if (c.dropAfterStoreNext > 0) {
      c.dropAfterStoreNext -= 1;
      return 'drop-after-store';
    }
    if (c.failBeforeStoreProbability > 0 && this.random() < c.failBeforeStoreProbability) return 'fail-before-store';
    if (c.failAfterStoreProbability > 0 && this.random() < c.failAfterStoreProbability) return 'fail-after-store';
    if (c.dropAfterStoreProbability > 0 && this.random() < c.dropAfterStoreProbability) return 'drop-after-store';
    return 'none';
  }

  /** True when successful responses must be rewritten (extra or reordered properties). */
  rewritesResponses(): boolean {
    return this.config.extraProperties || this.config.reorderProperties;
  }

  rewrite(value: unknown): unknown {
    if (Array.isArray(value)) return value.map((item) => this.rewrite(item));
    if (value === null || typeof value !== 'object') return value;
    let entries = Object.entries(value).map(([key, inner]) => [key, this.rewrite(inner)] as [string, unknown]);
    if (this.config.extraProperties) entries.push(...this.extraEntries());
    if (this.config.reorderProperties) entries = this.shuffled(entries);
    return Object.fromEntries(entries);
  }

  private extraEntries(): [string, unknown][] {
    const count = 1 + Math.floor(this.random() * 2);
    const extras: [string, unknown][] = [];
    for (let i = 0; i < count; i += 1) {
      const name = `x_sandbox_${Math.floor(this.random() * 1e9).toString(36)}`;
      const kind = Math.floor(this.random() * 4);
      const values: unknown[] = ['unexpected', Math.floor(this.random() * 1000), true, { nested: 'unexpected' }];
      extras.push([name, values[kind]]);
    }
    return extras;
  }

  private shuffled<T>(items: T[]): T[] {
    const copy = [...items];
    for (let i = copy.length - 1; i > 0; i -= 1) {
      const j = Math.floor(this.random() * (i + 1));
      [copy[i], copy[j]] = [copy[j] as T, copy[i] as T];
    }
    // A shuffle may land on the original order; a reordering fault must reorder.
    const unchanged = copy.every((item, index) => item === items[index]);
    return unchanged && copy.length > 1 ? copy.reverse() : copy;
  }
}
