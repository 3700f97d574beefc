// keys:* over key custody. Key material stays here: only public keys, fingerprints and file paths
// go back to the renderer.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { KeyView } from '../../preload/api';
import type { KeyRecord, Profile } from '../profiles/profile-schema';
import type { DemoController } from './demo-controller';
import { hasSecret } from './profile-views';
import type { ProfileAreaService } from './profile-binding';
import type { DeskRuntime } from './runtime';

async function keyView(rt: DeskRuntime, k: KeyRecord): Promise<KeyView> {
  return {
    id: k.keyId,
    profileId: k.profileId,
    status: k.status,
    source: k.source,
    algorithm: 'RSA',
    modulusBits: k.bits,
    fingerprint: k.fingerprint,
    publicKeyPem: await rt.ctx.keys.publicKeyPem(k.profileId, k.keyId),
    createdAt: k.createdAt,
    retiredAt: k.retiredAt,
  };
}

export function keysService(rt: DeskRuntime, demo: DemoController | null): ProfileAreaService<'keys'> {
  const { keys } = rt.ctx;
  // A Demo profile's sandbox must know every new public key, or the next token request fails.
  const changed = async (profile: Profile) => {
    if (profile.isDemo && demo) await demo.registerKeys(profile.id);
    await rt.reset(profile.id);
  };
  return {
    async list(profile) {
      return Promise.all(keys.listKeys(profile.id).map((k) => keyView(rt, k)));
    },
    async generate(profile, { modulusBits }) {
      const record = await keys.generateKey(profile.id, modulusBits);
      await changed(profile);
      return keyView(rt, record);
    },
    async import(profile, { privateKeyPem, passphrase }) {
      const record = await keys.importKey(profile.id, privateKeyPem, passphrase);
      await changed(profile);
      return keyView(rt, record);
    },
    async exportPublic(profile, { keyId }) {
      const record = keys.keyRecord(profile.id, keyId);
      return {
        fileName: `${profile.id}-${record.keyId}.public.pem`,
        mimeType: 'application/x-pem-file',
        content: await keys.publicKeyPem(profile.id, record.keyId),
        fingerprint: record.fingerprint,
      };
    },
    async letter(profile, { keyId }) {
      const record = keys.keyRecord(profile.id, keyId);
      return {
        fileName: `${profile.id}-${record.keyId}-key-letter.txt`,
        mimeType: 'text/plain',
        content: await keys.keyLetter(profile.id, record.keyId),
        profileName: profile.name,
        merchantCode: profile.merchantCode,
        environment: profile.environment,
        fingerprint: record.fingerprint,
        publicKeyPem: await keys.publicKeyPem(profile.id, record.keyId),
      };
    },
    async rotate(profile) {
      const { key, previousKeyId } = await keys.rotate(profile.id);
      await changed(profile);
      const previous = previousKeyId ? await keyView(rt, keys.keyRecord(profile.id, previousKeyId)) : null;
      return { active: await keyView(rt, key), previous };
    },
    async retire(profile, { keyId }) {
      const record = keys.retire(profile.id, keyId);
      await rt.reset(profile.id);
      await rt.ctx.trail.flush();
      return keyView(rt, record);
    },
    async backup(profile, { keyId, passphrase, confirmed, path }) {
      const record = keys.keyRecord(profile.id, keyId);
      const pem = await keys.backupPem(profile.id, record.keyId, passphrase, confirmed);
      const target = path ?? join(rt.ctx.home, 'backups', `${profile.id}-${record.keyId}-${Date.now()}.backup.pem`);
      await mkdir(join(target, '..'), { recursive: true });
      // wx: never overwrite an existing file; 0600: the backup is for this user only.
      await writeFile(target, pem, { flag: 'wx', mode: 0o600 });
      return { path: target, fingerprint: record.fingerprint };
    },
    async setSecret(profile, { secret }) {
      await keys.setDeprecatedSecret(profile.id, secret);
      await rt.reset(profile.id);
      return { hasSecret: true };
    },
    async clearSecret(profile) {
      await keys.deleteDeprecatedSecret(profile.id);
      await rt.reset(profile.id);
      return { hasSecret: await hasSecret(rt, profile.id) };
    },
  };
}
