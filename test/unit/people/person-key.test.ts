// A person's signing key: sealed under both the keychain wrap key and the passphrase, each failure named.
import { verify } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { MemoryKeyStore } from '../../../main/keys/key-store';
import { PersonKeyVault, personSigningKeyAccount, personWrapKeyAccount } from '../../../main/people/key-vault';
import { DEFAULT_KDF, MIN_KDF, generatePersonKey, parseSealedPersonKey, publicKeyObject, sealPersonKey, unsealPersonKey } from '../../../main/people/person-key';
import { PeopleError, checkPersonInput, currentRoles, heldRoleAt, type Person, type PersonRecord } from '../../../main/people/roles';

const PASS = 'correct horse battery';

function record(id: string, publicKey: string, revokedAt: number | null = null): PersonRecord {
  return { id, name: `Person ${id}`, publicKey, createdAt: 0, createdBy: null, revokedAt, revokedBy: null, revokeReason: null };
}

async function codeOf(work: Promise<unknown>): Promise<string> {
  try {
    await work;
  } catch (e) {
    if (e instanceof PeopleError) return e.code;
    throw e;
  }
  return 'no error';
}

describe('the KDF', () => {
  it('defaults to scrypt N=2^17, r=8, p=1 (128 MiB per guess)', () => {
    expect(DEFAULT_KDF).toEqual({ N: 131072, r: 8, p: 1 });
    expect(128 * DEFAULT_KDF.N * DEFAULT_KDF.r).toBe(128 * 1024 * 1024);
  });

  it('seals with the default parameters and opens with them', async () => {
    const pair = generatePersonKey();
    const wrapKey = Buffer.alloc(32, 7);
    const sealed = await sealPersonKey({ personId: 'p1', pair, passphrase: PASS, wrapKey });
    expect(sealed.kdf).toMatchObject({ alg: 'scrypt', N: 131072, r: 8, p: 1 });
    const key = await unsealPersonKey({ sealed, personId: 'p1', publicKey: pair.publicKey, passphrase: PASS, wrapKey });
    expect(key.asymmetricKeyType).toBe('ed25519');
  }, 30_000);
});

describe('the vault', () => {
  const vault = (store = new MemoryKeyStore()) => ({ store, vault: new PersonKeyVault(store, { kdf: MIN_KDF }) });

  it('keeps only the wrap key and the sealed blob in the keychain; the blob holds no plain key', async () => {
    const { store, vault: v } = vault();
    const { publicKey } = await v.create('p1', PASS);
    expect(store.size).toBe(2);
    const text = (await store.get(personSigningKeyAccount('p1')))!;
    expect(text.length).toBeLessThan(2560);
    expect(text).not.toContain(PASS);
    expect(parseSealedPersonKey(text).publicKey).toBe(publicKey);
    expect(Buffer.from((await store.get(personWrapKeyAccount('p1')))!, 'base64')).toHaveLength(32);
  });

  it('unlocks into a session whose signatures verify with the public key; lock stops signing', async () => {
    const { vault: v } = vault();
    const { publicKey } = await v.create('p1', PASS);
    const session = await v.unlock(record('p1', publicKey), PASS);
    const message = Buffer.from('manifest digest');
    const signature = session.sign(message);
    expect(verify(null, message, publicKeyObject(publicKey), Buffer.from(signature, 'base64'))).toBe(true);
    session.lock();
    expect(() => session.sign(message)).toThrow(/locked/);
  });

  it('says "wrong passphrase" for a wrong passphrase', async () => {
    const { vault: v } = vault();
    const { publicKey } = await v.create('p1', PASS);
    await expect(v.unlock(record('p1', publicKey), 'correct horse batterY')).rejects.toThrow('Wrong passphrase');
  });

  it('needs the keychain wrap key too: another keychain, or none, cannot open the blob even with the passphrase', async () => {
    const { store, vault: v } = vault();
    const { publicKey } = await v.create('p1', PASS);
    const other = new MemoryKeyStore();
    await other.set(personSigningKeyAccount('p1'), (await store.get(personSigningKeyAccount('p1')))!);
    expect(await codeOf(new PersonKeyVault(other).unlock(record('p1', publicKey), PASS))).toBe('KEY_MISSING');
    await other.set(personWrapKeyAccount('p1'), Buffer.alloc(32, 1).toString('base64'));
    expect(await codeOf(new PersonKeyVault(other).unlock(record('p1', publicKey), PASS))).toBe('KEY_ELSEWHERE');
  });

  it('refuses a blob moved to another person, one whose parameters were lowered, and a revoked person', async () => {
    const { store, vault: v } = vault();
    const { publicKey } = await v.create('p1', PASS);
    const text = (await store.get(personSigningKeyAccount('p1')))!;
    await store.set(personSigningKeyAccount('p2'), text);
    await store.set(personWrapKeyAccount('p2'), (await store.get(personWrapKeyAccount('p1')))!);
    expect(await codeOf(v.unlock(record('p2', publicKey), PASS))).toBe('KEY_MISMATCH');
    const lowered = JSON.parse(text) as { kdf: { N: number } };
    lowered.kdf.N = 2 ** 10;
    await store.set(personSigningKeyAccount('p1'), JSON.stringify(lowered));
    expect(await codeOf(v.unlock(record('p1', publicKey), PASS))).toBe('KEY_DAMAGED');
    await store.set(personSigningKeyAccount('p1'), text);
    expect(await codeOf(v.unlock(record('p1', publicKey, 5), PASS))).toBe('PERSON_REVOKED');
    expect(await codeOf(v.unlock(record('p1', generatePersonKey().publicKey), PASS))).toBe('KEY_MISMATCH');
  });

  it('refuses a short passphrase, and forgets the key on remove', async () => {
    const { store, vault: v } = vault();
    expect(await codeOf(v.create('p1', 'short'))).toBe('WEAK_PASSPHRASE');
    await v.create('p1', PASS);
    await v.remove('p1');
    expect(store.size).toBe(0);
    expect(await v.has('p1')).toBe(false);
  });
});

describe('roles over time', () => {
  const person: Person = {
    ...record('p1', 'x'),
    grants: [
      { personId: 'p1', role: 'approver', grantedAt: 100, grantedBy: null, removedAt: 200, removedBy: 'admin' },
      { personId: 'p1', role: 'preparer', grantedAt: 100, grantedBy: null, removedAt: null, removedBy: null },
    ],
  };

  it('answers "held the role at that moment" from the grant history', () => {
    expect(heldRoleAt(person, 'approver', 99)).toBe(false);
    expect(heldRoleAt(person, 'approver', 100)).toBe(true);
    expect(heldRoleAt(person, 'approver', 199)).toBe(true);
    expect(heldRoleAt(person, 'approver', 200)).toBe(false);
    expect(currentRoles(person)).toEqual(['preparer']);
  });

  it('cleans names and refuses unknown or no roles', () => {
    expect(checkPersonInput('  Ada   Lovelace ', ['admin', 'approver', 'admin'])).toEqual({ name: 'Ada Lovelace', roles: ['approver', 'admin'] });
    expect(() => checkPersonInput('Ada', ['boss'])).toThrow(/Unknown role/);
    expect(() => checkPersonInput('Ada', [])).toThrow(/at least one role/);
    expect(() => checkPersonInput('  ', ['viewer'])).toThrow(/name/);
  });
});
