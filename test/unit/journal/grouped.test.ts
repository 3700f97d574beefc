// The team journal groups claims, SENDING writes and status observations that wait for one statement
// (main/store/postgres/grouped.ts): each request must still get its own answer, in order, and a failed
// statement must fail exactly the requests it carried.
import { describe, expect, it, vi } from 'vitest';
import { Grouped } from '../../../main/store/postgres/grouped';

/** A statement runner whose statements finish only when the test says so. */
function heldStatements() {
  const calls: { inputs: number[]; finish: () => void; fail: (e: Error) => void }[] = [];
  const run = (inputs: number[]) =>
    new Promise<string[]>((resolve, reject) => {
      calls.push({ inputs, finish: () => resolve(inputs.map((n) => `answer ${n}`)), fail: reject });
    });
  return { calls, run };
}

describe('Grouped', () => {
  it('sends the first requests at once and groups the ones that arrive while statements are out', async () => {
    const { calls, run } = heldStatements();
    const grouped = new Grouped(run, 1);
    const answers = [1, 2, 3, 4].map((n) => grouped.add(n));
    expect(calls.map((c) => c.inputs)).toEqual([[1]]);
    calls[0]!.finish();
    await vi.waitFor(() => expect(calls).toHaveLength(2));
    expect(calls.map((c) => c.inputs)).toEqual([[1], [2, 3, 4]]);
    calls[1]!.finish();
    expect(await Promise.all(answers)).toEqual(['answer 1', 'answer 2', 'answer 3', 'answer 4']);
  });

  it('keeps at most `parallel` statements out and at most `most` requests in one', async () => {
    const { calls, run } = heldStatements();
    const grouped = new Grouped(run, 2, 3);
    const answers = Array.from({ length: 9 }, (_, n) => grouped.add(n));
    expect(calls.map((c) => c.inputs)).toEqual([[0], [1]]);
    calls[0]!.finish();
    calls[1]!.finish();
    await vi.waitFor(() => expect(calls).toHaveLength(4));
    expect(calls.slice(2).map((c) => c.inputs)).toEqual([[2, 3, 4], [5, 6, 7]]);
    calls[2]!.finish();
    calls[3]!.finish();
    await vi.waitFor(() => expect(calls).toHaveLength(5));
    expect(calls[4]!.inputs).toEqual([8]);
    calls[4]!.finish();
    expect(await answers[8]).toBe('answer 8');
  });

  it('fails the requests of a failed statement, and only those; the next group still runs', async () => {
    const { calls, run } = heldStatements();
    const grouped = new Grouped(run, 1);
    const first = grouped.add(1);
    const later = [2, 3].map((n) => grouped.add(n));
    calls[0]!.fail(new Error('connection lost'));
    await expect(first).rejects.toThrow('connection lost');
    await vi.waitFor(() => expect(calls).toHaveLength(2));
    expect(calls[1]!.inputs).toEqual([2, 3]);
    calls[1]!.finish();
    expect(await Promise.all(later)).toEqual(['answer 2', 'answer 3']);
  });
});
