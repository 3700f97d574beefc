// Fault injection. Every fault is deterministic for tests: counters ("fail the next N creates") are consumed
// first, then probabilities are drawn from a seeded generator, so a given seed replays the same faults.
import { z } from 'zod';

const Probability = z.number().min(0).max(1);
const Count = z.number().int().min(0);

export const FaultConfigSchema = z
  .object({
    /** Added to every API response (not to /_sandbox routes). */
    latencyMs: Count,
    /** A uniformly drawn 0..latencyJitterMs is added on top of latencyMs. */
    latencyJitterMs: Count,
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

  constructor(initial: Partial<FaultConfig> = {}) {
    this.config = { ...NO_FAULTS, ...FaultPatchSchema.parse(initial) };
    this.random = seededRandom(this.config.seed);
  }

  /** Merges a patch into the current faults; a seed in the patch restarts the generator. */
  update(patch: Partial<FaultConfig>): FaultConfig {
    const checked = FaultPatchSchema.parse(patch);
    this.config = { ...this.config, ...checked };
    if (checked.seed !== undefined) this.random = seededRandom(checked.seed);
    return this.current();
  }

  current(): FaultConfig {
    return { ...this.config };
  }

  latencyMs(): number {
    const { latencyMs, latencyJitterMs } = this.config;
    if (latencyJitterMs === 0) return latencyMs;
    return latencyMs + Math.floor(this.random() * (latencyJitterMs + 1));
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
