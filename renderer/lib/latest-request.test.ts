import { describe, expect, it } from 'vitest';
import { latestRequests } from './latest-request';

/** A request whose answer comes when the test says so. */
function deferred<T>() {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

describe('latestRequests', () => {
  it('drops the answer of an older request that lands after the newer one', async () => {
    const gate = latestRequests();
    const first = deferred<string>();
    const second = deferred<string>();
    const shown: string[] = [];
    const a = gate.run(() => first.promise).then((r) => !r.stale && shown.push(r.value));
    const b = gate.run(() => second.promise).then((r) => !r.stale && shown.push(r.value));
    second.resolve('file B');
    await b;
    first.resolve('file A');
    await a;
    expect(shown).toEqual(['file B']);
  });

  it('keeps the answer of the latest request when the answers come in order', async () => {
    const gate = latestRequests();
    const results = await Promise.all([gate.run(async () => 1)]);
    expect(results).toEqual([{ stale: false, value: 1 }]);
    const older = gate.begin();
    const newer = gate.begin();
    expect([older(), newer()]).toEqual([false, true]);
  });

  it('drops every answer in flight after dropAll (a reset screen shows nothing old)', async () => {
    const gate = latestRequests();
    const answer = deferred<number>();
    const pending = gate.run(() => answer.promise);
    gate.dropAll();
    answer.resolve(7);
    expect(await pending).toEqual({ stale: true });
  });

  it('lets a request check its ticket between its own steps', async () => {
    const gate = latestRequests();
    const steps: string[] = [];
    const slow = gate.run(async (isLatest) => {
      await Promise.resolve();
      if (!isLatest()) return steps.push('stopped early');
      return steps.push('went on');
    });
    gate.begin();
    await slow;
    expect(steps).toEqual(['stopped early']);
  });
});
