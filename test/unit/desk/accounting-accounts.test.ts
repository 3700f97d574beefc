// The accounts an accounting export posts to, under dual control: only an unlocked admin changes them (audited with
// who and what changed); an approver or nobody unlocked is refused and nothing changes.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { DEFAULT_ACCOUNTS } from '../../../main/accounting/accounts';
import { createAppContext, type AppContext } from '../../../main/context';
import { accountingService } from '../../../main/desk/accounting';
import { createCurrencyCache } from '../../../main/desk/currency-cache';
import { dualControlService } from '../../../main/desk/dual-control';
import { createDeskEvents } from '../../../main/desk/events';
import { createDeskRuntime, type DeskRuntime } from '../../../main/desk/runtime';
import { MemoryKeyStore } from '../../../main/keys/key-store';
import { silentLogger } from '../../../main/log';
import type { UnlockedSession } from '../../../main/people/key-vault';
import { MIN_KDF } from '../../../main/people/person-key';

const PROFILE = 'shop';
let home: string;
let ctx: AppContext;
let rt: DeskRuntime;
let ada: UnlockedSession;
let bob: UnlockedSession;

beforeEach(async () => {
  home = mkdtempSync(join(tmpdir(), 'accounts-'));
  ctx = createAppContext({ home, keyStore: new MemoryKeyStore() });
  ctx.profiles.add({ id: PROFILE, name: 'Shop', baseUrl: 'https://gateway.example.invalid', merchantCode: 'M1', useDeprecatedSecret: true });
  ctx.profiles.setCurrent(PROFILE);
  rt = createDeskRuntime({ ctx, events: createDeskEvents(), log: silentLogger });
  const dc = dualControlService(rt, { kdf: MIN_KDF });
  ada = (await dc.addPerson(PROFILE, { name: 'Ada', passphrase: 'ada passphrase 1' })).session;
  const enrolled = await dc.enroll(PROFILE, { name: 'Bob', passphrase: 'bob passphrase 1' });
  bob = enrolled.session;
  await dc.setRoles(PROFILE, enrolled.person.id, ['approver'], ada);
});
afterEach(async () => {
  await rt.close();
  ctx.close();
  rmSync(home, { recursive: true, force: true });
});

it('lets only an unlocked admin change the accounts, and audits who changed what', async () => {
  const service = accountingService(rt, createCurrencyCache(rt));
  const profile = ctx.profiles.get(PROFILE);
  const mine = { ...DEFAULT_ACCOUNTS, clearing: '1010', payouts: '6000' };
  rt.setSession(PROFILE, bob);
  await expect(service.setAccounts(profile, mine)).rejects.toMatchObject({ code: 'NOT_ALLOWED', message: 'Bob is not an admin; changing the accounts the accounting export posts to needs one' });
  expect(await service.accounts(profile, undefined)).toEqual(DEFAULT_ACCOUNTS);
  rt.setSession(PROFILE, ada);
  expect(await service.setAccounts(profile, mine)).toEqual(mine);
  const entry = (await (await rt.journalFor(PROFILE)).listAudit(20)).find((e) => e.action === 'accounting.accounts-set');
  expect(entry?.details).toMatchObject({ personName: 'Ada', changed: { clearing: { from: DEFAULT_ACCOUNTS.clearing, to: '1010' }, payouts: { from: 'Payouts', to: '6000' } } });
});
