// Gateway answers are read up to a cap: past it the call fails with a specific error, and a create whose
// answer was cut off is of unknown outcome, settled by reading the same id back, never sent again under
// another id.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gatewayPortFor } from '../../../main/desk/profile-engine';
import { PayoutEngine } from '../../../main/engine';
import { GatewayError } from '../../../main/gateway/errors';
import { DEFAULT_MAX_RESPONSE_BYTES } from '../../../main/gateway/transport';
import { draft, until } from '../engine/engine-helpers';
import { tempJournal } from '../journal/helpers';
import { FakeGateway, clientFixture, tokenRoute, type ClientFixture } from './fake-gateway';

const huge = 'x'.repeat(DEFAULT_MAX_RESPONSE_BYTES + 1);
const gw = new FakeGateway()
  .on('POST /auth-tokens', tokenRoute())
  .on('GET /currencies', () => ({ text: huge }))
  .on('GET /payouts/:id', (req) => {
    const id = req.url.split('/').pop()!;
    if (id === 'huge-read') return { status: 200, body: { process: { status: 'PENDING' }, padding: huge } };
    if (id === 'huge-error') return { status: 500, text: huge };
    return { body: { process: { status: 'PENDING' }, paymentMethodResponse: { idPayout: id } } };
  })
  // The create is taken (later reads find it), but its answer is far too large to read.
  .on('POST /payouts/:id', () => ({ status: 200, body: { process: { status: 'PENDING' }, padding: huge } }));

let f: ClientFixture;
beforeAll(async () => {
  await gw.start();
  f = await clientFixture(gw.url);
});
afterAll(async () => {
  f.ctx.close();
  await gw.stop();
});

async function failure(p: Promise<unknown>): Promise<GatewayError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof GatewayError) return e;
    throw e;
  }
  throw new Error('expected a failure');
}

describe('answer size cap', () => {
  it('a read, a failed read and a code list larger than the cap fail with "gateway answer larger than N bytes"', async () => {
    const client = f.ctx.gatewayFor(f.profileId);
    for (const call of [() => client.getPayout('huge-read'), () => client.getPayout('huge-error'), () => client.currencies()]) {
      const e = await failure(call());
      expect(e.kind).toBe('bad-response');
      expect(e.code).toBe('ANSWER_TOO_LARGE');
      expect(e.message).toMatch(new RegExp(`: gateway answer larger than ${DEFAULT_MAX_RESPONSE_BYTES} bytes; the rest was not read$`));
    }
    // Not a passing fault: a GET is not tried again for it.
    expect(gw.requestsTo('GET /payouts/huge-read')).toHaveLength(1);
  });

  it('a create whose answer is too large is UNKNOWN, then settled by GET of the same id; nothing is sent again', async () => {
    const t = tempJournal();
    const engine = new PayoutEngine({ journal: t.journal, gateway: gatewayPortFor(f.ctx, f.profileId), pollIntervalMs: 50, pollTickMs: 10, backoff: { baseMs: 10, capMs: 50 } });
    const seen: string[] = [];
    engine.on('status-changed', (e) => seen.push(`${e.status}:${e.source}`));
    try {
      await engine.start();
      await engine.submitPayout(draft('cut-off'), { waitMs: 3_000 });
      await until(() => t.journal.getPayment('payout', 'cut-off')?.state === 'ACCEPTED', 5_000);
      expect(seen[0]).toBe('UNKNOWN:local');
      expect(seen).toContain('PENDING:poll');
      expect(gw.requestsTo('POST /payouts/:id').map((r) => r.url)).toEqual(['/payouts/cut-off']);
      expect(gw.requestsTo('GET /payouts/cut-off').length).toBeGreaterThanOrEqual(1);
      expect(t.journal.getPayment('payout', 'cut-off')?.status).toBe('PENDING');
    } finally {
      await engine.stop();
      t.dispose();
    }
  });
});
