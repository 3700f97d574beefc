// The sandbox's network switches as pure logic (an injected clock): answer legs drawn apart from request
// legs, and stalls ending on the cycle's boundary.
import { describe, expect, it } from 'vitest';
import { FaultController } from '../../../sandbox/faults';

describe('answer-leg latency', () => {
  it('defaults to the request leg (latencyMs + jitter) and may be switched apart', () => {
    const faults = new FaultController({ latencyMs: 300 });
    expect(faults.answerLatencyMs()).toBe(300);
    faults.update({ answerLatencyMs: 20 });
    expect(faults.answerLatencyMs()).toBe(20);
    expect(faults.latencyMs()).toBe(300);
  });

  it('draws each leg within latency…latency+jitter, independently of the other leg', () => {
    const faults = new FaultController({ latencyMs: 100, latencyJitterMs: 50, seed: 9 });
    const requests: number[] = [];
    const answers: number[] = [];
    for (let i = 0; i < 400; i++) {
      requests.push(faults.latencyMs());
      answers.push(faults.answerLatencyMs());
    }
    for (const ms of [...requests, ...answers]) {
      expect(ms).toBeGreaterThanOrEqual(100);
      expect(ms).toBeLessThanOrEqual(150);
    }
    // Not the same draw twice: the legs of one request differ most of the time.
    expect(requests.filter((ms, i) => ms !== answers[i]).length).toBeGreaterThan(300);
    expect(Math.min(...answers)).toBeLessThan(105);
    expect(Math.max(...answers)).toBeGreaterThan(145);
  });

  it('switching answer jitter on leaves the request legs (and other faults) of a seed unchanged', () => {
    const plain = new FaultController({ latencyMs: 10, latencyJitterMs: 30, seed: 4 });
    const withAnswers = new FaultController({ latencyMs: 10, latencyJitterMs: 30, answerLatencyJitterMs: 90, seed: 4 });
    const a: number[] = [];
    const b: number[] = [];
    for (let i = 0; i < 50; i++) {
      a.push(plain.latencyMs());
      b.push(withAnswers.latencyMs());
      withAnswers.answerLatencyMs();
    }
    expect(b).toEqual(a);
  });
});

describe('stalls', () => {
  it('holds requests arriving in the last stallForMs of each stallEveryMs until the stall ends', () => {
    let now = 5_000;
    const faults = new FaultController({}, () => now);
    expect(faults.stallWaitMs()).toBe(0);
    faults.update({ stallEveryMs: 20_000, stallForMs: 2_000 }); // cycle counted from t = 5 000
    const waitAt = (t: number) => {
      now = t;
      return faults.stallWaitMs();
    };
    expect(waitAt(5_000)).toBe(0);
    expect(waitAt(22_999)).toBe(0);
    expect(waitAt(23_000)).toBe(2_000);
    expect(waitAt(24_500)).toBe(500);
    expect(waitAt(24_999)).toBe(1);
    expect(waitAt(25_000)).toBe(0);
    expect(waitAt(43_000 + 1_234)).toBe(766);
  });

  it('a stall as long as the cycle holds every request to the next boundary; 0 switches stalls off', () => {
    let now = 0;
    const faults = new FaultController({ stallEveryMs: 400, stallForMs: 1_000 }, () => now);
    now = 1;
    expect(faults.stallWaitMs()).toBe(399);
    now = 800;
    expect(faults.stallWaitMs()).toBe(400);
    faults.update({ stallForMs: 0 });
    expect(faults.stallWaitMs()).toBe(0);
  });
});
