// A full workflow (keys, tokens, payouts, payin token, errors, deprecated secret) with every log line
// captured: no private key, wrap key, merchant secret, token or Authorization value appears in a
// log line (neither as passed in nor as written) or in an error message.
import { afterAll, describe, expect, it } from 'vitest';
import { GatewayError } from '../../../main/gateway/errors';
import { importRsaPrivateKeyPem } from '../../../main/keys/rsa';
import { wrapKeyAccount } from '../../../main/keys/key-custody';
import { MemoryKeyStore } from '../../../main/keys/key-store';
import { createCapturingLogger } from '../../../main/log';
import { createAppContext } from '../../../main/context';
import { startSandbox, type SandboxHandle } from '../../../sandbox/index';
import { eventually, samplePayout } from './sandbox-fixture';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const SECRET = 'merchant-secret-DO-NOT-LOG-42';
const handles: SandboxHandle[] = [];
afterAll(async () => {
  for (const h of handles) await h.close();
});

describe('secrets never reach logs or error messages', () => {
  it('holds across a whole workflow', async () => {
    const sandbox = await startSandbox({
      merchants: [{ code: 'DEMO-MERCHANT', channelName: 'Demo Store', secret: SECRET }],
      timings: { payoutPendingMs: 50, payoutProcessingMs: 50 },
    });
    handles.push(sandbox);
    const log = createCapturingLogger();
    const keyStore = new MemoryKeyStore();
    const ctx = createAppContext({ home: mkdtempSync(join(tmpdir(), 'desk-nolog-')), keyStore, logger: log });
    const errors: string[] = [];
    const expectFailure = async (p: Promise<unknown>) => {
      try {
        await p;
      } catch (e) {
        expect(e).toBeInstanceOf(GatewayError);
        errors.push((e as Error).message, JSON.stringify(e), String((e as Error).stack));
        return;
      }
      throw new Error('expected a failure');
    };

    // Keys: generate, rotate, letter, backup.
    const profile = ctx.profiles.add({ name: 'Workflow', baseUrl: sandbox.url, merchantCode: 'DEMO-MERCHANT' });
    await ctx.keys.generateKey(profile.id, 2048);
    await ctx.keys.rotate(profile.id, 2048);
    sandbox.registerPublicKey('DEMO-MERCHANT', await ctx.keys.publicKeyPem(profile.id));
    await ctx.keys.keyLetter(profile.id);
    const backup = await ctx.keys.backupPem(profile.id, ctx.keys.keyRecord(profile.id).keyId, 'backup passphrase 1', true);
    const privatePem = importRsaPrivateKeyPem(backup, 'backup passphrase 1').export({ type: 'pkcs8', format: 'pem' }).toString();

    // Tokens, payouts, payins, lists, and errors of several kinds.
    const client = ctx.gatewayFor(profile.id);
    await client.createPayout('nolog-1', samplePayout);
    await eventually(() => client.getPayout('nolog-1'), (s) => s.status === 'SUCCESS');
    await expectFailure(client.createPayout('nolog-1', samplePayout));
    await expectFailure(client.getPayout('nolog-unknown'));
    const payinToken = await client.createPayinToken({ action: 'PAYIN_CREATE', idPayin: 'nolog-in', validitySecs: 60 });
    await client.balances(['EUR']);
    sandbox.setFaults({ failBeforeStoreNext: 1 });
    await expectFailure(client.createPayout('nolog-2', samplePayout));

    // Deprecated secret, then a refused secret.
    await ctx.keys.setDeprecatedSecret(profile.id, SECRET);
    ctx.profiles.update(profile.id, { useDeprecatedSecret: true });
    await ctx.gatewayFor(profile.id).merchantInfo();
    await ctx.keys.setDeprecatedSecret(profile.id, `${SECRET}-wrong`);
    ctx.profiles.update(profile.id, { tokenValiditySecs: 600 });
    await expectFailure(ctx.gatewayFor(profile.id).merchantInfo());

    // A key that the gateway does not know.
    ctx.profiles.update(profile.id, { useDeprecatedSecret: false });
    await ctx.keys.rotate(profile.id, 2048);
    await expectFailure(ctx.gatewayFor(profile.id).merchantInfo());

    const wrapKey = (await keyStore.get(wrapKeyAccount(profile.id)))!;
    const keyLines = privatePem.split('\n').filter((l) => l.length > 20 && !l.startsWith('-----'));
    const everything = [...log.raw, ...log.lines, ...errors].join('\n');
    expect(log.lines.length).toBeGreaterThan(15);
    expect(everything).toContain('gateway request');
    for (const line of keyLines) expect(everything).not.toContain(line);
    expect(everything).not.toContain('PRIVATE KEY');
    expect(everything).not.toContain(wrapKey);
    expect(everything).not.toContain(SECRET);
    expect(everything).not.toContain(payinToken.token);
    expect(everything).not.toMatch(/eyJ[A-Za-z0-9_-]{10,}/);
    expect(everything).not.toMatch(/Bearer\s+\S/);
    ctx.close();
  }, 60_000);
});
