// people:*SecondFactor through the real handlers (MemoryKeyStore, a real journal), as the People screen calls
// them: nobody unlocked is LOCKED; set-up answers a QR code of the otpauth URI; the confirming code gives ten
// recovery codes, once; the view says what asks for a code and until when the last one covers; removal needs a
// code; hostile codes are INVALID_ARGUMENT; the secret and codes never reach the audit log.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IpcHandlerMap, SecondFactorEnrolment, SecondFactorView } from '../../../contract/api';
import { createAppContext, type AppContext } from '../../../main/context';
import { bindActiveProfile, createDeskServices } from '../../../main/desk';
import { createDeskEvents } from '../../../main/desk/events';
import { createDeskRuntime, type DeskRuntime } from '../../../main/desk/runtime';
import { createIpcHandlers } from '../../../main/ipc/handlers';
import { MemoryKeyStore } from '../../../main/keys/key-store';
import { handlerCalls } from './handler-calls';
import { silentLogger } from '../../../main/log';
import { codeAt } from '../../../main/people/second-factor';

let home: string;
let ctx: AppContext;
let rt: DeskRuntime;
let handlers: IpcHandlerMap;

const { ok, fails } = handlerCalls(() => handlers);

beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'desk-2fa-ipc-'));
  ctx = createAppContext({ home, keyStore: new MemoryKeyStore() });
  ctx.profiles.add({ id: 'live-1', name: 'Live', baseUrl: 'https://gateway.example.invalid', merchantCode: 'M1', environment: 'LIVE', useDeprecatedSecret: true });
  ctx.profiles.setCurrent('live-1');
  rt = createDeskRuntime({ ctx, events: createDeskEvents(), log: silentLogger });
  handlers = createIpcHandlers(bindActiveProfile(createDeskServices(rt, { name: 'Payout Desk', version: '0', platform: 'linux', demoAvailable: false }, null), ctx));
});
afterAll(async () => {
  await rt.close();
  ctx.close();
  rmSync(home, { recursive: true, force: true });
});

describe('the second factor over IPC', { timeout: 30_000 }, () => {
  let start: SecondFactorEnrolment;
  let recoveryCodes: string[] = [];

  it('nobody unlocked: the view is empty and set-up is LOCKED', async () => {
    expect(await ok<SecondFactorView>('people:secondFactor')).toEqual({ personId: null, enrolled: false, recoveryCodesLeft: null, onApprove: false, onAdmin: false, verifiedUntil: null });
    expect((await fails('people:beginSecondFactor')).code).toBe('LOCKED');
  });

  it('on LIVE\'s default policy an approver is asked on approve before setting one up; admin changes are not', async () => {
    await ok('people:add', { name: 'Ada', passphrase: 'ada-long-passphrase' });
    expect(await ok<SecondFactorView>('people:secondFactor')).toMatchObject({ enrolled: false, onApprove: true, onAdmin: false, verifiedUntil: null });
  });

  it('set-up answers the otpauth URI, its secret and a QR code of it as a PNG', async () => {
    start = await ok<SecondFactorEnrolment>('people:beginSecondFactor');
    expect(start.uri).toContain(`secret=${start.secret}`);
    expect(start.uri).toContain('Ada%20(Live)');
    expect(start.qrDataUrl).toMatch(/^data:image\/png;base64,/);
    const png = Buffer.from(start.qrDataUrl.split(',')[1]!, 'base64');
    expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
    expect(Date.parse(start.expiresAt) - Date.now()).toBeGreaterThan(9 * 60_000);
  });

  it('a wrong code does not confirm; the app\'s code does, once, with ten recovery codes', async () => {
    const right = codeAt(start.secret, Date.now());
    expect((await fails('people:confirmSecondFactor', { code: right === '000000' ? '111111' : '000000' })).code).toBe('SECOND_FACTOR_WRONG');
    const done = await ok<{ view: SecondFactorView; recoveryCodes: string[] }>('people:confirmSecondFactor', { code: right });
    recoveryCodes = done.recoveryCodes;
    expect(recoveryCodes).toHaveLength(10);
    // Set up now: asked on admin changes too, and the confirming code covers the next five minutes.
    expect(done.view).toMatchObject({ enrolled: true, recoveryCodesLeft: 10, onApprove: true, onAdmin: true });
    expect(Date.parse(done.view.verifiedUntil ?? '')).toBeGreaterThan(Date.now() + 4 * 60_000);
    expect((await fails('people:confirmSecondFactor', { code: right })).code).toBe('SECOND_FACTOR_NO_ENROLMENT');
  });

  it('hostile codes are INVALID_ARGUMENT and reach no service', async () => {
    for (const code of ['12345', '1234567', 'x'.repeat(5000), '12 34 56', 42, null]) {
      expect((await fails('people:verifySecondFactor', { code })).code).toBe('INVALID_ARGUMENT');
    }
    expect((await fails('approvals:approve', { kind: 'batch', id: 'b-1', passphrase: 'ada-long-passphrase', code: '1' })).code).toBe('INVALID_ARGUMENT');
  });

  it('removal needs a code: a recovery code works, and the secret and codes are never in the audit log', async () => {
    expect((await fails('people:removeSecondFactor', { code: 'AAAAA-AAAAA' })).code).toBe('SECOND_FACTOR_WRONG');
    const view = await ok<SecondFactorView>('people:removeSecondFactor', { code: recoveryCodes[0]! });
    expect(view).toMatchObject({ enrolled: false, recoveryCodesLeft: null, onAdmin: false });
    const audit = JSON.stringify(await (await rt.journalFor('live-1')).listAudit(100));
    for (const action of ['person.second-factor-enrolled', 'person.second-factor-used', 'person.second-factor-failed', 'person.second-factor-removed']) expect(audit).toContain(action);
    expect(audit).not.toContain(start.secret);
    for (const code of recoveryCodes) expect(audit).not.toContain(code);
  });
});
