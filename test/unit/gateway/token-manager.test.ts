// Token refresh before expiry (token-manager.ts refreshMarginMs) with an injected clock: the cached
// general token is reused until `exp - margin` and fetched again from then on, by exactly one
// request however many callers ask at once. Margin: 10 % of the lifetime, at least 5 s, at most 60 s.
import { SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { TokenManager } from '../../../main/gateway/token-manager';
import type { GatewayRequest, GatewayResponse } from '../../../main/gateway/transport';
import { silentLogger } from '../../../main/log';

const KEY = new TextEncoder().encode('token-manager-test-key-0123456789');
const T0 = Date.UTC(2026, 0, 15, 12, 0, 0);

/** A fake token endpoint: every request issues a JWT (iat = the fake clock, exp = iat + lifetime). */
function tokenFixture(lifetimeSecs: number, options: { withClaims?: boolean } = {}) {
  let clock = T0;
  const requests: GatewayRequest[] = [];
  const gates: (() => void)[] = [];
  let hold = false;
  const send = async (request: GatewayRequest): Promise<GatewayResponse> => {
    requests.push(request);
    if (hold) await new Promise<void>((resolve) => gates.push(resolve));
    const iat = Math.floor(clock / 1000);
    const jwt = new SignJWT({ sub: 'M1', n: requests.length }).setProtectedHeader({ alg: 'HS256' });
    if (options.withClaims !== false) jwt.setIssuedAt(iat).setExpirationTime(iat + lifetimeSecs);
    const token = await jwt.sign(KEY);
    return { status: 200, data: { token, expiresAt: new Date((iat + lifetimeSecs) * 1000).toISOString() } };
  };
  const manager = new TokenManager({
    merchantCode: 'M1',
    timestampUnit: 'ms',
    validitySecs: lifetimeSecs,
    operations: ['GET /balances'],
    credentials: async () => ({ kind: 'secret', secret: 'not-used-by-the-fake' }),
    send,
    logger: silentLogger,
    now: () => clock,
  });
  return {
    manager,
    requests,
    set clock(ms: number) {
      clock = ms;
    },
    /** While held, token requests wait until release() (to make callers overlap). */
    hold() {
      hold = true;
    },
    release() {
      hold = false;
      for (const open of gates.splice(0)) open();
    },
  };
}

describe('token refresh before expiry', () => {
  it.each([
    // lifetime s, margin ms: 10 % of 900 s is 90 s, capped at 60 s; 10 % of 300 s is 30 s; 10 % of 20 s is 2 s, raised to 5 s.
    [900, 60_000],
    [300, 30_000],
    [20, 5_000],
  ])('a %i s token is reused until %i ms before exp, then fetched again', async (lifetimeSecs, marginMs) => {
    const t = tokenFixture(lifetimeSecs);
    const first = await t.manager.token();
    expect(t.requests).toHaveLength(1);
    const expMs = T0 + lifetimeSecs * 1000;

    t.clock = expMs - marginMs - 1; // the last millisecond before the margin
    expect(await t.manager.token()).toBe(first);
    expect(t.requests).toHaveLength(1);

    t.clock = expMs - marginMs; // the margin starts: refresh, though the token has not expired yet
    const second = await t.manager.token();
    expect(second).not.toBe(first);
    expect(t.requests).toHaveLength(2);
    // The new token is cached in turn.
    expect(await t.manager.token()).toBe(second);
    expect(t.requests).toHaveLength(2);
  });

  it('takes the lifetime from the validity asked for when the token carries no iat / exp', async () => {
    // No claims: expiry comes from expiresAt, the lifetime from validitySecs (300 s → 30 s margin).
    const t = tokenFixture(300, { withClaims: false });
    const first = await t.manager.token();
    t.clock = T0 + 270_000 - 1;
    expect(await t.manager.token()).toBe(first);
    t.clock = T0 + 270_000;
    expect(await t.manager.token()).not.toBe(first);
    expect(t.requests).toHaveLength(2);
  });

  it('fetches exactly once after the margin, however many callers ask at the same time', async () => {
    const t = tokenFixture(900);
    const first = await t.manager.token();
    t.clock = T0 + 900_000 - 60_000;
    t.hold();
    const callers = Promise.all(Array.from({ length: 12 }, () => t.manager.token()));
    const claims = t.manager.claims();
    await new Promise((r) => setTimeout(r, 10));
    expect(t.requests).toHaveLength(2); // one refresh on the wire, everyone waiting on it
    t.release();
    const tokens = await callers;
    expect(new Set(tokens).size).toBe(1);
    expect(tokens[0]).not.toBe(first);
    expect((await claims).n).toBe(2);
    expect(t.requests).toHaveLength(2);
    // Every token request is the signed/secret general token request, not something else.
    expect(t.requests.map((r) => `${r.method} ${r.path} ${r.lane}`)).toEqual(['POST /auth-tokens token', 'POST /auth-tokens token']);
  });

  it('a failed refresh is not cached: the next caller tries again', async () => {
    let fail = true;
    const manager = new TokenManager({
      merchantCode: 'M1', timestampUnit: 'ms', validitySecs: 900, operations: ['GET /balances'], logger: silentLogger,
      credentials: async () => ({ kind: 'secret', secret: 's' }),
      now: () => T0,
      send: async () => {
        if (fail) throw new Error('offline');
        return { status: 200, data: { token: await new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setIssuedAt(T0 / 1000).setExpirationTime(T0 / 1000 + 900).sign(KEY) } };
      },
    });
    await expect(manager.token()).rejects.toThrow('offline');
    fail = false;
    await expect(manager.token()).resolves.toMatch(/^eyJ/);
  });
});
