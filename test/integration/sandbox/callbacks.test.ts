// Spec §6 callbacks with the house payload, retries with backoff until 2xx, and silence after close().
import { afterEach, describe, expect, it } from 'vitest';
import { callbackReceiver, payinBody, payoutBody, startWithClient, waitFor, type SandboxClient } from './helpers';

let client: SandboxClient | undefined;
let receiver: Awaited<ReturnType<typeof callbackReceiver>> | undefined;
afterEach(async () => {
  await client?.sandbox.close();
  await receiver?.close();
});

describe('callbacks', () => {
  it('sends PAYOUT_STATUS_CHANGED for PROCESSING and SUCCESS, naming the payout only', async () => {
    receiver = await callbackReceiver();
    client = await startWithClient();
    const token = await client.token();
    const body = { ...payoutBody(), callbackUrl: receiver.url };
    expect((await client.request('POST', '/payouts/cb-po-1', { token, body })).status).toBe(201);
    // The receiver sees the request before the sandbox sees the answer: wait for both sides.
    await waitFor(() => receiver?.received.length === 2, 3_000, 'two callbacks');
    await waitFor(() => client?.sandbox.state().callbacks.filter((c) => c.delivered).length === 2, 3_000, 'delivery');
    for (const callback of receiver.received) {
      expect(callback.body).toEqual({
        eventType: 'PAYOUT_STATUS_CHANGED',
        idPayout: 'cb-po-1',
        sentAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T.*\.\d{3}Z$/),
      });
      expect(callback.headers['content-type']).toBe('application/json');
    }
    const records = client.sandbox.state().callbacks;
    expect(records.map((r) => r.status)).toEqual(['PROCESSING', 'SUCCESS']);
    expect(records.every((r) => r.delivered && r.attempts.length === 1)).toBe(true);
  });

  it('sends PAYIN_STATUS_CHANGED when a payin is paid', async () => {
    receiver = await callbackReceiver();
    client = await startWithClient();
    const token = await client.token();
    await client.request('POST', '/payins/cb-pi-1', { token, body: payinBody({ callbackUrl: receiver.url }) });
    client.sandbox.markPayinPaid('cb-pi-1');
    await waitFor(() => receiver?.received.length === 1, 3_000, 'payin callback');
    expect(receiver.received[0]?.body).toMatchObject({ eventType: 'PAYIN_STATUS_CHANGED', idPayin: 'cb-pi-1' });
  });

  it('retries with growing delays until the receiver answers 2xx', async () => {
    receiver = await callbackReceiver([500, 503, 200]);
    client = await startWithClient({
      timings: { payoutPendingMs: 10, payoutProcessingMs: 60_000, payinExpiryMs: 60_000 },
      callbackRetry: { maxAttempts: 5, initialDelayMs: 40, factor: 2, maxDelayMs: 1_000, timeoutMs: 1_000 },
    });
    const token = await client.token();
    await client.request('POST', '/payouts/cb-retry-1', { token, body: { ...payoutBody(), callbackUrl: receiver.url } });
    const record = await waitFor(
      () => client?.sandbox.state().callbacks.find((c) => c.delivered),
      3_000,
      'delivered callback',
    );
    expect(record.attempts.map((a) => a.httpStatus)).toEqual([500, 503, 200]);
    const times = record.attempts.map((a) => new Date(a.at).getTime());
    const gaps = [(times[1] ?? 0) - (times[0] ?? 0), (times[2] ?? 0) - (times[1] ?? 0)];
    expect(gaps[0]).toBeGreaterThanOrEqual(35);
    expect(gaps[1]).toBeGreaterThanOrEqual(75);
  });

  it('with no maxAttempts (the default) keeps retrying until the receiver answers 2xx', async () => {
    receiver = await callbackReceiver([...Array<number>(12).fill(503), 200]);
    client = await startWithClient({
      timings: { payoutPendingMs: 10, payoutProcessingMs: 60_000, payinExpiryMs: 60_000 },
      callbackRetry: { maxAttempts: null, initialDelayMs: 5, factor: 1, maxDelayMs: 5, timeoutMs: 1_000 },
    });
    const token = await client.token();
    await client.request('POST', '/payouts/cb-forever-1', { token, body: { ...payoutBody(), callbackUrl: receiver.url } });
    const record = await waitFor(() => client?.sandbox.state().callbacks.find((c) => c.delivered), 5_000, 'delivered callback');
    expect(record.attempts).toHaveLength(13);
    expect(record.gaveUp).toBe(false);
  });

  it('gives up after maxAttempts and records every attempt, also for an unreachable receiver', async () => {
    client = await startWithClient({
      timings: { payoutPendingMs: 10, payoutProcessingMs: 60_000, payinExpiryMs: 60_000 },
      callbackRetry: { maxAttempts: 3, initialDelayMs: 10, factor: 1, maxDelayMs: 10, timeoutMs: 500 },
    });
    const token = await client.token();
    const body = { ...payoutBody(), callbackUrl: 'http://127.0.0.1:9/unreachable' };
    await client.request('POST', '/payouts/cb-giveup-1', { token, body });
    const record = await waitFor(() => client?.sandbox.state().callbacks.find((c) => c.gaveUp), 3_000, 'give up');
    expect(record.attempts).toHaveLength(3);
    expect(record.attempts.every((a) => a.httpStatus === null && a.error)).toBe(true);
  });

  it('stops retrying and changing state after close()', async () => {
    receiver = await callbackReceiver([500]);
    client = await startWithClient({
      timings: { payoutPendingMs: 10, payoutProcessingMs: 5_000, payinExpiryMs: 60_000 },
      callbackRetry: { maxAttempts: 50, initialDelayMs: 20, factor: 1, maxDelayMs: 20, timeoutMs: 500 },
    });
    const token = await client.token();
    await client.request('POST', '/payouts/cb-close-1', { token, body: { ...payoutBody(), callbackUrl: receiver.url } });
    await waitFor(() => (receiver?.received.length ?? 0) >= 2, 3_000, 'a few attempts');
    await client.sandbox.close();
    const countAtClose = receiver.received.length;
    const statusAtClose = client.sandbox.state().payouts[0]?.status;
    await new Promise((resolve) => setTimeout(resolve, 250));
    expect(receiver.received.length).toBeLessThanOrEqual(countAtClose + 1); // at most one already in flight
    expect(client.sandbox.state().payouts[0]?.status).toBe(statusAtClose);
    expect(statusAtClose).toBe('PROCESSING');
  });
});
