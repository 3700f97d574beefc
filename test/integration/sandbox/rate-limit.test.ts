// Spec §7/§8: more than 10 requests per second → 429. House decision: any 1000 ms window, per merchant,
// answered with Retry-After; refused requests are counted in /_sandbox/state.
import { afterEach, describe, expect, it } from 'vitest';
import { MERCHANT, SandboxClient, errorCode, startWithClient, type ApiResponse } from './helpers';

let client: SandboxClient | undefined;
afterEach(() => client?.sandbox.close());

/** Sent together so they land in one window even on a loaded machine. */
function burst(c: SandboxClient, token: string, count: number): Promise<ApiResponse[]> {
  return Promise.all(Array.from({ length: count }, () => c.request('GET', '/currencies', { token })));
}

const countStatus = (responses: ApiResponse[], status: number) => responses.filter((r) => r.status === status).length;

describe('rate limit', () => {
  it('answers the 11th request inside 1000 ms with 429, Retry-After and the error body', async () => {
    client = await startWithClient({ rateLimitPerSecond: 10 });
    const token = await client.token(); // the token request takes a slot while it is in the window
    const responses = await burst(client, token, 11);
    const accepted = countStatus(responses, 200);
    const refusedCount = countStatus(responses, 429);
    expect(accepted + refusedCount).toBe(11);
    expect(accepted).toBeGreaterThanOrEqual(9);
    expect(accepted).toBeLessThanOrEqual(10);
    const refused = responses.find((r) => r.status === 429) as ApiResponse;
    expect(errorCode(refused)).toBe('RATE_LIMITED');
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(client.sandbox.state().rateLimitedCount).toBe(refusedCount);
  });

  it('lets requests through again once the window has moved on', async () => {
    client = await startWithClient({ rateLimitPerSecond: 5 });
    const token = await client.token();
    const first = await burst(client, token, 6);
    const refused = first.find((r) => r.status === 429);
    const waitMs = Number(refused?.headers.get('x-retry-after-ms'));
    expect(waitMs).toBeGreaterThan(0);
    expect(waitMs).toBeLessThanOrEqual(1_000);
    await new Promise((resolve) => setTimeout(resolve, waitMs + 20));
    const later = await client.request('GET', '/currencies', { token });
    expect(later.status).toBe(200);
  });

  it('counts each merchant separately', async () => {
    client = await startWithClient({
      rateLimitPerSecond: 3,
      merchants: [
        { code: MERCHANT, channelName: 'Demo Store' },
        { code: 'SECOND', channelName: 'Second Shop' },
      ],
    });
    client.sandbox.registerPublicKey('SECOND', client.keys.publicPem);
    const second = new SandboxClient(client.sandbox, client.keys, 'SECOND');
    const firstToken = await client.token();
    const secondToken = await second.token();
    const firstBurst = await burst(client, firstToken, 4);
    expect(countStatus(firstBurst, 429)).toBeGreaterThanOrEqual(1);
    const secondCall = await second.request('GET', '/currencies', { token: secondToken });
    expect(secondCall.status).toBe(200);
  });

  it('a 429 on a create stores nothing and counts no attempt', async () => {
    client = await startWithClient({ rateLimitPerSecond: 1 });
    const token = await client.token();
    const ids = ['rl-1', 'rl-2', 'rl-3'];
    const c = client;
    const responses = await Promise.all(ids.map((id) => c.request('POST', `/payouts/${id}`, { token, body: {} })));
    const refusedIds = ids.filter((_id, i) => responses[i]?.status === 429);
    expect(refusedIds.length).toBeGreaterThanOrEqual(2);
    const state = client.sandbox.state();
    for (const id of refusedIds) {
      expect(state.createAttempts.payouts[id]).toBeUndefined();
      expect(state.payouts.some((p) => p.idPayout === id)).toBe(false);
    }
  });

  it.each([null, 0])('switches off with rateLimitPerSecond %s', async (limit) => {
    client = await startWithClient({ rateLimitPerSecond: limit });
    const token = await client.token();
    const responses = await burst(client, token, 30);
    expect(responses.every((r) => r.status === 200)).toBe(true);
    expect(client.sandbox.state().rateLimitedCount).toBe(0);
  });
});
