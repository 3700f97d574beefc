// Fault switches: 5xx before/after store, dropped connection after store, latency, extra and reordered
// properties; switched by config, by POST /_sandbox/faults and by the handle.
import { afterEach, describe, expect, it } from 'vitest';
import { errorCode, payinBody, payoutBody, startWithClient, type SandboxClient } from './helpers';

let client: SandboxClient | undefined;
afterEach(() => client?.sandbox.close());

async function setFaultsOverHttp(c: SandboxClient, faults: Record<string, unknown>): Promise<number> {
  const response = await fetch(`${c.sandbox.url}/_sandbox/faults`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(faults),
  });
  return response.status;
}

describe('create faults', () => {
  it('5xx before store: answers 500 and stores nothing; the retry with the same id succeeds', async () => {
    client = await startWithClient();
    const token = await client.token();
    expect(await setFaultsOverHttp(client, { failBeforeStoreNext: 1 })).toBe(200);
    const first = await client.request('POST', '/payouts/f-before-1', { token, body: payoutBody() });
    expect(first.status).toBe(500);
    expect(errorCode(first)).toBe('SIMULATED_FAILURE');
    expect(client.sandbox.state().payouts).toHaveLength(0);
    const retry = await client.request('POST', '/payouts/f-before-1', { token, body: payoutBody() });
    expect(retry.status).toBe(201);
    const state = client.sandbox.state();
    expect(state.payouts).toHaveLength(1);
    expect(state.createAttempts.payouts['f-before-1']).toBe(2);
  });

  it('5xx after store (from config): answers 500 but the payout exists; a retry gets 409', async () => {
    client = await startWithClient({ faults: { failAfterStoreNext: 1 } });
    const token = await client.token();
    const first = await client.request('POST', '/payouts/f-after-1', { token, body: payoutBody() });
    expect(first.status).toBe(500);
    expect(client.sandbox.state().payouts.map((p) => p.idPayout)).toEqual(['f-after-1']);
    const retry = await client.request('POST', '/payouts/f-after-1', { token, body: payoutBody() });
    expect(retry.status).toBe(409);
    expect(client.sandbox.state().payouts).toHaveLength(1);
  });

  it('dropped connection after store: the client sees a network error, the payin exists', async () => {
    client = await startWithClient();
    const token = await client.token();
    client.sandbox.setFaults({ dropAfterStoreNext: 1 });
    await expect(client.request('POST', '/payins/f-drop-1', { token, body: payinBody() })).rejects.toThrow();
    expect(client.sandbox.state().payins.map((p) => p.idPayin)).toEqual(['f-drop-1']);
    const read = await client.request('GET', '/payins/f-drop-1', { token });
    expect(read.status).toBe(200);
  });

  it('probabilities replay the same faults for the same seed', async () => {
    const outcomes: number[][] = [];
    for (let run = 0; run < 2; run += 1) {
      client = await startWithClient({ faults: { failBeforeStoreProbability: 0.5, seed: 42 } });
      const token = await client.token();
      const statuses: number[] = [];
      for (let i = 0; i < 12; i += 1) {
        statuses.push((await client.request('POST', `/payouts/seed-${i}`, { token, body: payoutBody({ amount: 1 }) })).status);
      }
      outcomes.push(statuses);
      await client.sandbox.close();
    }
    expect(outcomes[0]).toEqual(outcomes[1]);
    expect(outcomes[0]).toContain(500);
    expect(outcomes[0]).toContain(201);
  });

  it('refuses an unknown fault name with 400', async () => {
    client = await startWithClient();
    expect(await setFaultsOverHttp(client, { explode: true })).toBe(400);
    expect(await setFaultsOverHttp(client, { failAfterStoreProbability: 2 })).toBe(400);
  });
});

describe('response faults', () => {
  it('latency delays API answers by at least latencyMs', async () => {
    client = await startWithClient({ faults: { latencyMs: 150 } });
    const token = await client.token();
    const started = Date.now();
    const response = await client.request('GET', '/currencies', { token });
    expect(response.status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(145);
  });

  it('the answer leg is delayed on its own: the payout is stamped at least answerLatencyMs before its answer arrives', async () => {
    client = await startWithClient();
    const token = await client.token();
    client.sandbox.setFaults({ latencyMs: 0, answerLatencyMs: 150 });
    const response = await client.request('POST', '/payouts/leg-answer', { token, body: payoutBody() });
    const received = Date.now();
    expect(response.status).toBe(201);
    const stamp = Date.parse(client.sandbox.state().payouts[0]!.createdAt);
    expect(received - stamp).toBeGreaterThanOrEqual(145);
  });

  it('without answer switches latencyMs delays both legs: stamped ≥ latencyMs after sending and before answering', async () => {
    client = await startWithClient();
    const token = await client.token();
    client.sandbox.setFaults({ latencyMs: 120 });
    const sent = Date.now();
    const response = await client.request('POST', '/payouts/leg-both', { token, body: payoutBody() });
    const received = Date.now();
    expect(response.status).toBe(201);
    const stamp = Date.parse(client.sandbox.state().payouts[0]!.createdAt);
    expect(stamp - sent).toBeGreaterThanOrEqual(115);
    expect(received - stamp).toBeGreaterThanOrEqual(115);
    expect(client.sandbox.state().faults).toMatchObject({ latencyMs: 120, answerLatencyMs: null, answerLatencyJitterMs: null });
  });

  it('a stall holds a request until it ends: nothing is stamped inside the stall', async () => {
    client = await startWithClient();
    const token = await client.token();
    // The whole cycle is a stall: every request waits for the next multiple of 400 ms after the switch.
    const before = Date.now();
    expect(await setFaultsOverHttp(client, { stallEveryMs: 400, stallForMs: 400 })).toBe(200);
    const response = await client.request('POST', '/payouts/stalled', { token, body: payoutBody() });
    expect(response.status).toBe(201);
    const stamp = Date.parse(client.sandbox.state().payouts[0]!.createdAt);
    expect(stamp - before).toBeGreaterThanOrEqual(399);
    client.sandbox.setFaults({ stallForMs: 0 });
    const after = await client.request('POST', '/payouts/not-stalled', { token, body: payoutBody() });
    expect(after.status).toBe(201);
  });

  it('extra properties: unknown fields appear in every object, known ones are unchanged', async () => {
    client = await startWithClient();
    const token = await client.token();
    client.sandbox.setFaults({ extraProperties: true });
    const response = await client.request('GET', '/merchant-info', { token });
    const body = response.body as { channelInfo: Record<string, unknown> } & Record<string, unknown>;
    expect(body.channelInfo.name).toBe('Demo Store');
    expect(Object.keys(body).some((k) => k.startsWith('x_sandbox_'))).toBe(true);
    expect(Object.keys(body.channelInfo).some((k) => k.startsWith('x_sandbox_'))).toBe(true);
  });

  it('reordered properties: same content, different key order', async () => {
    // The payout stays PENDING between the two reads: with the usual 30 ms it could move on in between (a loaded CI).
    client = await startWithClient({ timings: { payoutPendingMs: 600_000, payoutProcessingMs: 600_000, payinExpiryMs: 60_000 } });
    const token = await client.token();
    await client.request('POST', '/payouts/f-order-1', { token, body: payoutBody() });
    const plain = await client.request('GET', '/payouts/f-order-1', { token });
    expect(await setFaultsOverHttp(client, { reorderProperties: true })).toBe(200);
    const shuffled = await client.request('GET', '/payouts/f-order-1', { token });
    expect(shuffled.body).toEqual(plain.body);
    expect(Object.keys(shuffled.body as object)).not.toEqual(Object.keys(plain.body as object));
  });

  it('error answers keep the plain error body while response faults are on', async () => {
    client = await startWithClient({ faults: { extraProperties: true, reorderProperties: true } });
    const token = await client.token();
    const response = await client.request('GET', '/payouts/nope-1', { token });
    expect(response.body).toEqual({ error: { code: 'NOT_FOUND', message: expect.any(String) } });
  });
});
