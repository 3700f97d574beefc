// Profiles in SQLite: defaults, validation with specific messages, current profile, persistence.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ProfileError, ProfileStore } from '../../../main/profiles/profile-store';

const file = () => join(mkdtempSync(join(tmpdir(), 'desk-profiles-')), 'desk.db');

describe('ProfileStore', () => {
  it('adds a profile with house defaults and a slug id, and makes the first one current', () => {
    const store = new ProfileStore(file());
    const p = store.add({ name: 'Demo Store (EU)', baseUrl: 'http://127.0.0.1:8787/', merchantCode: 'DEMO-MERCHANT' });
    expect(p).toMatchObject({
      id: 'demo-store-eu',
      baseUrl: 'http://127.0.0.1:8787',
      apiMajorVersion: 2,
      timestampUnit: 'ms',
      environment: 'TEST',
      rateLimitPerSec: 10,
      tokenValiditySecs: 900,
      activeKeyId: null,
      useDeprecatedSecret: false,
      accountDataPath: '/payins/{idPayin}/account-data',
      finalStatuses: ['SUCCESS', 'FAILED', 'REJECTED', 'CANCELLED', 'EXPIRED', 'RETURNED'],
    });
    expect(store.currentId()).toBe('demo-store-eu');
    const second = store.add({ name: 'Live', baseUrl: 'https://gw.example.com', merchantCode: 'M2', environment: 'LIVE' });
    expect(store.currentId()).toBe('demo-store-eu');
    store.setCurrent(second.id);
    expect(store.currentId()).toBe('live');
    store.close();
  });

  it('refuses bad input with the field named, and duplicates', () => {
    const store = new ProfileStore(file());
    const attempt = (input: Parameters<ProfileStore['add']>[0]) => {
      try {
        store.add(input);
        return 'ok';
      } catch (e) {
        return e instanceof ProfileError ? `${e.code} ${e.message}` : String(e);
      }
    };
    expect(attempt({ name: 'X', baseUrl: 'ftp://x', merchantCode: 'M' })).toMatch(/^PROFILE_INVALID .*baseUrl: must be an http\(s\) URL/);
    expect(attempt({ name: 'X', baseUrl: 'https://x', merchantCode: '' })).toMatch(/merchantCode: merchant code is required/);
    expect(attempt({ name: 'X', baseUrl: 'https://x', merchantCode: 'M', rateLimitPerSec: 0 })).toMatch(/rateLimitPerSec/);
    expect(attempt({ name: 'X', baseUrl: 'https://x', merchantCode: 'M', accountDataPath: '/payins/x' })).toMatch(/contain \{idPayin\}/);
    expect(attempt({ name: 'X', baseUrl: 'https://x', merchantCode: 'M' })).toBe('ok');
    expect(attempt({ name: 'X', baseUrl: 'https://y', merchantCode: 'M' })).toMatch(/^PROFILE_EXISTS/);
    expect(store.list()).toHaveLength(1);
    store.close();
  });

  it('persists updates across reopen and rejects invalid changes without losing data', () => {
    const path = file();
    const store = new ProfileStore(path);
    const p = store.add({ name: 'Shop', baseUrl: 'https://gw.example.com', merchantCode: 'M1' });
    store.update(p.id, { timestampUnit: 's', maxAmountMinor: 500_000, finalStatuses: ['success', 'failed'] });
    expect(() => store.update(p.id, { timestampUnit: 'min' as 's' })).toThrow(/timestampUnit/);
    expect(() => store.update(p.id, { id: 'other' } as never)).toThrow(/id: is not a profile field/);
    // A patch changes only what it names: the earlier changes stay.
    store.update(p.id, { tokenValiditySecs: 600 });
    store.close();
    const reopened = new ProfileStore(path);
    expect(reopened.get(p.id)).toMatchObject({ tokenValiditySecs: 600, timestampUnit: 's', maxAmountMinor: 500_000, finalStatuses: ['SUCCESS', 'FAILED'], merchantCode: 'M1' });
    expect(reopened.resolve('Shop').id).toBe(p.id);
    expect(() => reopened.resolve('nope')).toThrow(/No profile "nope"/);
    reopened.close();
  });
});
