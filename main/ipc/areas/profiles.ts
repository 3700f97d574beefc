// profiles:*, keys:* and settings:* over the profile store and key custody. Key material stays
// here: only public keys, fingerprints and file paths go back to the renderer.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { KeyView, ProfileView, SettingsView } from '../../../preload/api';
import type { KeyRecord, Profile, ProfilePatch } from '../../profiles/profile-schema';
import type { DeskRuntime } from '../runtime';
import { toJson } from './convert';
import { DeskError, type AreaService } from '../services';

export interface DemoController {
  /** Starts the sandbox, creates the Demo profile with a registered key and funded balances. */
  createDemoProfile(): Promise<Profile>;
  /** Demo only: the sandbox marks a payin paid. */
  markPayinPaid(profileId: string, idPayin: string): void;
  /** Registers the profile's usable public keys with the demo sandbox (after generate, import, rotate). */
  registerKeys(profileId: string): Promise<void>;
}

export function settingsView(p: Profile): SettingsView {
  return {
    rateLimitPerSec: p.rateLimitPerSec,
    pollIntervalSecs: p.pollIntervalSecs,
    finalStatuses: p.finalStatuses,
    tokenValiditySecs: p.tokenValiditySecs,
    timestampUnit: p.timestampUnit,
    accountDataPath: p.accountDataPath,
    maxAmountMinor: p.maxAmountMinor,
    callback: { enabled: p.callbackEnabled, host: p.callbackHost, port: p.callbackPort, url: p.callbackUrl },
  };
}

async function hasSecret(rt: DeskRuntime, profileId: string): Promise<boolean> {
  try {
    return await rt.ctx.keys.hasDeprecatedSecret(profileId);
  } catch {
    // No keychain (e.g. locked): the profile list must still show.
    return false;
  }
}

export async function profileView(rt: DeskRuntime, p: Profile): Promise<ProfileView> {
  return {
    id: p.id,
    name: p.name,
    baseUrl: p.baseUrl,
    merchantCode: p.merchantCode,
    environment: p.environment,
    isDemo: p.isDemo,
    apiMajorVersion: p.apiMajorVersion,
    activeKeyId: p.activeKeyId,
    useDeprecatedSecret: p.useDeprecatedSecret,
    hasSecret: await hasSecret(rt, p.id),
    settings: settingsView(p),
  };
}

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

const pick = (rt: DeskRuntime, profileId?: string): Profile => (profileId ? rt.ctx.profiles.get(profileId) : rt.activeProfile());

async function activate(rt: DeskRuntime, profile: Profile): Promise<void> {
  rt.ctx.profiles.setCurrent(profile.id);
  rt.setConnection(profile.id, { status: 'unknown', lastError: null });
}

export function profilesService(rt: DeskRuntime, demo: DemoController | null): AreaService<'profiles'> {
  const { profiles } = rt.ctx;
  return {
    async list() {
      return { profiles: await Promise.all(profiles.list().map((p) => profileView(rt, p))), activeProfileId: profiles.currentId() };
    },
    async create(args) {
      const profile = profiles.add({ ...args, isDemo: false });
      if (!profiles.currentId()) await activate(rt, profile);
      return profileView(rt, profile);
    },
    async createDemo() {
      if (!demo) throw new DeskError('NOT_AVAILABLE', 'Demo mode is not available in this build');
      const profile = await demo.createDemoProfile();
      await activate(rt, profile);
      return profileView(rt, profile);
    },
    async use({ profileId }) {
      const profile = profiles.get(profileId);
      await activate(rt, profile);
      return profileView(rt, profile);
    },
    async update({ profileId, ...patch }) {
      const profile = profiles.update(profileId, patch);
      await rt.reset(profileId);
      return profileView(rt, profile);
    },
    async remove({ profileId }) {
      await rt.reset(profileId);
      profiles.remove(profileId);
      return { removed: true };
    },
    async testConnection({ profileId }) {
      const profile = pick(rt, profileId);
      const client = rt.ctx.gatewayFor(profile.id);
      rt.setConnection(profile.id, { status: 'connecting' });
      try {
        const info = await client.merchantInfo();
        const claims = await client.decodedTokenClaims();
        rt.setConnection(profile.id, { status: 'online', channelName: info.channelName, lastError: null });
        const json = toJson(claims);
        const tokenClaims = json && typeof json === 'object' && !Array.isArray(json) ? json : {};
        return { channelName: info.channelName, environment: profile.environment, tokenClaims, checkedAt: new Date().toISOString() };
      } catch (error) {
        const e = error as { code?: unknown; message?: unknown };
        rt.setConnection(profile.id, { status: 'offline', lastError: { code: typeof e.code === 'string' ? e.code : 'ERROR', message: String(e.message ?? error) } });
        throw error;
      }
    },
  };
}

export function keysService(rt: DeskRuntime, demo: DemoController | null): AreaService<'keys'> {
  const { keys } = rt.ctx;
  // A Demo profile's sandbox must know every new public key, or the next token request fails.
  const changed = async (profile: Profile) => {
    if (profile.isDemo && demo) await demo.registerKeys(profile.id);
    await rt.reset(profile.id);
  };
  return {
    async list({ profileId }) {
      const profile = pick(rt, profileId);
      return Promise.all(keys.listKeys(profile.id).map((k) => keyView(rt, k)));
    },
    async generate({ profileId, modulusBits }) {
      const profile = pick(rt, profileId);
      const record = await keys.generateKey(profile.id, modulusBits);
      await changed(profile);
      return keyView(rt, record);
    },
    async import({ profileId, privateKeyPem, passphrase }) {
      const profile = pick(rt, profileId);
      const record = await keys.importKey(profile.id, privateKeyPem, passphrase);
      await changed(profile);
      return keyView(rt, record);
    },
    async exportPublic({ keyId, profileId }) {
      const profile = pick(rt, profileId);
      const record = keys.keyRecord(profile.id, keyId);
      return {
        fileName: `${profile.id}-${record.keyId}.public.pem`,
        mimeType: 'application/x-pem-file',
        content: await keys.publicKeyPem(profile.id, record.keyId),
        fingerprint: record.fingerprint,
      };
    },
    async letter({ keyId, profileId }) {
      const profile = pick(rt, profileId);
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
    async rotate({ profileId }) {
      const profile = pick(rt, profileId);
      const { key, previousKeyId } = await keys.rotate(profile.id);
      await changed(profile);
      const previous = previousKeyId ? await keyView(rt, keys.keyRecord(profile.id, previousKeyId)) : null;
      return { active: await keyView(rt, key), previous };
    },
    async retire({ keyId, profileId }) {
      const profile = pick(rt, profileId);
      const record = keys.retire(profile.id, keyId);
      await rt.reset(profile.id);
      return keyView(rt, record);
    },
    async backup({ keyId, profileId, passphrase, confirmed, path }) {
      const profile = pick(rt, profileId);
      const record = keys.keyRecord(profile.id, keyId);
      const pem = await keys.backupPem(profile.id, record.keyId, passphrase, confirmed);
      const target = path ?? join(rt.ctx.home, 'backups', `${profile.id}-${record.keyId}-${Date.now()}.backup.pem`);
      await mkdir(join(target, '..'), { recursive: true });
      // wx: never overwrite an existing file; 0600: the backup is for this user only.
      await writeFile(target, pem, { flag: 'wx', mode: 0o600 });
      return { path: target, fingerprint: record.fingerprint };
    },
    async setSecret({ profileId, secret }) {
      const profile = pick(rt, profileId);
      await keys.setDeprecatedSecret(profile.id, secret);
      await rt.reset(profile.id);
      return { hasSecret: true };
    },
    async clearSecret({ profileId }) {
      const profile = pick(rt, profileId);
      await keys.deleteDeprecatedSecret(profile.id);
      await rt.reset(profile.id);
      return { hasSecret: await hasSecret(rt, profile.id) };
    },
  };
}

export function settingsService(rt: DeskRuntime): AreaService<'settings'> {
  return {
    async get({ profileId }) {
      return settingsView(pick(rt, profileId));
    },
    async update({ profileId, callback, ...rest }) {
      const profile = pick(rt, profileId);
      const patch: ProfilePatch = { ...rest };
      if (callback?.enabled !== undefined) patch.callbackEnabled = callback.enabled;
      if (callback?.host !== undefined) patch.callbackHost = callback.host;
      if (callback?.port !== undefined) patch.callbackPort = callback.port;
      if (callback?.url !== undefined) patch.callbackUrl = callback.url;
      const updated = rt.ctx.profiles.update(profile.id, patch);
      await rt.reset(profile.id);
      return settingsView(updated);
    },
  };
}
