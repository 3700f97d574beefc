// The transport decides once whether the gateway is reached through a proxy (the fast path skips
// axios' look-up per request), so a proxy set in the environment must still carry every request.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { RateLimiter } from '../../../main/gateway/rate-limiter';
import { GatewayTransport } from '../../../main/gateway/transport';
import { silentLogger } from '../../../main/log';

const PROXY_VARS = ['HTTP_PROXY', 'http_proxy', 'HTTPS_PROXY', 'https_proxy', 'ALL_PROXY', 'all_proxy', 'NO_PROXY', 'no_proxy'];
const saved = new Map(PROXY_VARS.map((k) => [k, process.env[k]]));
const servers: Server[] = [];

afterEach(async () => {
  for (const [k, v] of saved) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

/** A server that answers every request with the URL it was asked for (a proxy is asked for absolute URLs). */
async function recorder(name: string): Promise<{ url: string; seen: string[] }> {
  const seen: string[] = [];
  const server = createServer((req: IncomingMessage, res) => {
    seen.push(req.url ?? '');
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ answeredBy: name }));
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

function transport(baseUrl: string): GatewayTransport {
  return new GatewayTransport({ baseUrl, apiMajorVersion: 1, timeoutMs: 5_000, limiter: new RateLimiter({ limit: 100 }), logger: silentLogger });
}

const balances = { method: 'GET', path: '/balances', lane: 'list', idempotent: true, operation: 'balances', idRoute: false } as const;

describe('gateway transport and proxies', () => {
  it('sends every request through the proxy the environment names for the gateway', async () => {
    for (const k of PROXY_VARS) delete process.env[k];
    const proxy = await recorder('proxy');
    process.env.HTTP_PROXY = proxy.url;
    // The gateway host does not resolve: only a proxy can answer for it.
    const t = transport('http://gateway.invalid:8080/api');
    for (let i = 0; i < 2; i++) await expect(t.send(balances)).resolves.toMatchObject({ status: 200, data: { answeredBy: 'proxy' } });
    expect(proxy.seen).toEqual(['http://gateway.invalid:8080/api/balances', 'http://gateway.invalid:8080/api/balances']);
  });

  it('goes straight to the gateway when NO_PROXY exempts it, or no proxy is set', async () => {
    for (const k of PROXY_VARS) delete process.env[k];
    const proxy = await recorder('proxy');
    const gateway = await recorder('gateway');
    await expect(transport(gateway.url).send(balances)).resolves.toMatchObject({ data: { answeredBy: 'gateway' } });
    process.env.HTTP_PROXY = proxy.url;
    process.env.NO_PROXY = '127.0.0.1';
    await expect(transport(gateway.url).send(balances)).resolves.toMatchObject({ data: { answeredBy: 'gateway' } });
    expect(gateway.seen).toEqual(['/balances', '/balances']);
    expect(proxy.seen).toEqual([]);
  });
});
