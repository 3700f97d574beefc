// The second factor on its own, with a clock the test moves: enrolment needs a code from the secret shown, a
// code counts one step either side of the desk's clock and never twice, recovery codes work once each, and a
// keychain entry copied to another person does not open.
import { randomBytes } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import { MemoryKeyStore } from '../../../main/keys/key-store';
import { personWrapKeyAccount } from '../../../main/people/key-vault';
import { codeAt, secondFactorAccount, SecondFactorVault, secretOfUri } from '../../../main/people/second-factor';

const T0 = Date.UTC(2026, 10, 27, 9, 0, 0);
let now = T0;
let keyStore: MemoryKeyStore;
let vault: SecondFactorVault;

async function person(id: string): Promise<void> {
  await keyStore.set(personWrapKeyAccount(id), randomBytes(32).toString('base64'));
}

async function enrolled(id: string): Promise<{ secret: string; recoveryCodes: string[] }> {
  const start = await vault.begin(id, 'Ada');
  const secret = secretOfUri(start.uri);
  const { recoveryCodes } = await vault.confirm(id, codeAt(secret, now));
  return { secret, recoveryCodes };
}

beforeEach(async () => {
  now = T0;
  keyStore = new MemoryKeyStore();
  vault = new SecondFactorVault(keyStore, () => now);
  await person('p-ada');
});

describe('second factor: enrolment', () => {
  it('shows an otpauth URI an app can read, with the same secret as text', async () => {
    const start = await vault.begin('p-ada', 'Ada Lovelace');
    expect(start.uri).toMatch(/^otpauth:\/\/totp\/Payout%20Desk:Ada%20Lovelace\?/);
    expect(start.uri).toContain('digits=6');
    expect(start.uri).toContain('period=30');
    expect(secretOfUri(start.uri)).toBe(start.secret);
    expect((await vault.status('p-ada')).enrolled).toBe(false);
  });

  it('is confirmed only by a code from the secret shown, and gives ten recovery codes once', async () => {
    const start = await vault.begin('p-ada', 'Ada');
    await expect(vault.confirm('p-ada', '000000')).rejects.toMatchObject({ code: 'SECOND_FACTOR_WRONG' });
    const { recoveryCodes } = await vault.confirm('p-ada', codeAt(start.secret, now));
    expect(recoveryCodes).toHaveLength(10);
    expect(new Set(recoveryCodes).size).toBe(10);
    for (const code of recoveryCodes) expect(code).toMatch(/^[A-Z2-9]{5}-[A-Z2-9]{5}$/);
    expect(await vault.status('p-ada')).toMatchObject({ enrolled: true, recoveryCodesLeft: 10 });
    // The secret is not readable in the keychain entry.
    expect(await keyStore.get(secondFactorAccount('p-ada'))).not.toContain(start.secret);
    await expect(vault.confirm('p-ada', codeAt(start.secret, now))).rejects.toMatchObject({ code: 'SECOND_FACTOR_NO_ENROLMENT' });
  });

  it('a set-up left for more than 10 minutes must start again', async () => {
    const start = await vault.begin('p-ada', 'Ada');
    now += 10 * 60_000 + 1;
    await expect(vault.confirm('p-ada', codeAt(start.secret, now))).rejects.toMatchObject({ code: 'SECOND_FACTOR_NO_ENROLMENT' });
  });

  it('refuses a second set-up while one is enrolled', async () => {
    await enrolled('p-ada');
    await expect(vault.begin('p-ada', 'Ada')).rejects.toMatchObject({ code: 'SECOND_FACTOR_ENROLLED' });
  });

  it('needs the person\'s keychain wrap key: a person whose key is elsewhere cannot enrol here', async () => {
    await expect(vault.begin('p-elsewhere', 'Bob')).rejects.toMatchObject({ code: 'KEY_MISSING' });
  });
});

describe('second factor: codes', () => {
  it('takes the code of the step before, now, or after (a phone a little off), and not two steps away', async () => {
    const { secret } = await enrolled('p-ada');
    now += 5 * 60_000;
    await expect(vault.use('p-ada', codeAt(secret, now - 30_000))).resolves.toMatchObject({ kind: 'totp' });
    now += 5 * 60_000;
    await expect(vault.use('p-ada', codeAt(secret, now + 30_000))).resolves.toMatchObject({ kind: 'totp' });
    now += 5 * 60_000;
    await expect(vault.use('p-ada', codeAt(secret, now - 61_000))).rejects.toMatchObject({ code: 'SECOND_FACTOR_WRONG' });
    await expect(vault.use('p-ada', codeAt(secret, now + 61_000))).rejects.toMatchObject({ code: 'SECOND_FACTOR_WRONG' });
  });

  it('refuses a code used once already, and an older one after a newer was used', async () => {
    const { secret } = await enrolled('p-ada');
    now += 60_000;
    const code = codeAt(secret, now);
    await vault.use('p-ada', code);
    await expect(vault.use('p-ada', code)).rejects.toMatchObject({ code: 'SECOND_FACTOR_REPLAYED' });
    await expect(vault.use('p-ada', codeAt(secret, now - 30_000))).rejects.toMatchObject({ code: 'SECOND_FACTOR_REPLAYED' });
    // The enrolment's own code is used too.
    const fresh = new SecondFactorVault(keyStore, () => now);
    await expect(fresh.use('p-ada', code)).rejects.toMatchObject({ code: 'SECOND_FACTOR_REPLAYED' });
    now += 30_000;
    await expect(fresh.use('p-ada', codeAt(secret, now))).resolves.toMatchObject({ kind: 'totp' });
  });

  it('takes each recovery code once, typed in any case and without the dash', async () => {
    const { recoveryCodes } = await enrolled('p-ada');
    const first = recoveryCodes[0]!;
    await expect(vault.use('p-ada', first.toLowerCase().replace('-', ''))).resolves.toEqual({ kind: 'recovery', recoveryCodesLeft: 9 });
    await expect(vault.use('p-ada', first)).rejects.toMatchObject({ code: 'SECOND_FACTOR_WRONG' });
    await expect(vault.use('p-ada', recoveryCodes[1]!)).resolves.toEqual({ kind: 'recovery', recoveryCodesLeft: 8 });
    expect((await vault.status('p-ada')).recoveryCodesLeft).toBe(8);
  });

  it('says when the person has no second factor', async () => {
    await expect(vault.use('p-ada', '123456')).rejects.toMatchObject({ code: 'SECOND_FACTOR_NOT_ENROLLED' });
  });

  it('does not open an entry copied from another person', async () => {
    await enrolled('p-ada');
    await person('p-bob');
    await keyStore.set(secondFactorAccount('p-bob'), (await keyStore.get(secondFactorAccount('p-ada')))!);
    await expect(vault.use('p-bob', '123456')).rejects.toMatchObject({ code: 'KEY_DAMAGED' });
  });

  it('is gone after remove', async () => {
    await enrolled('p-ada');
    await vault.remove('p-ada');
    expect(await vault.status('p-ada')).toEqual({ enrolled: false, recoveryCodesLeft: null, enrolledAt: null });
  });
});
