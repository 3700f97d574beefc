// keys:* over key custody. Key material stays here: only public keys, fingerprints and file paths
// go back to the renderer. Files are main's business too: an import reads the file the user chose
// (a token from main's dialog or a drop, never PEM text from the page), and a backup is written where
// the user said in main's own save dialog (never a path from the page).
import { open, writeFile } from 'node:fs/promises';
import type { KeyView } from '../../preload/api';
import type { KeyRecord, Profile } from '../profiles/profile-schema';
import type { DemoController } from './demo-controller';
import type { DialogPort } from './dialogs';
import type { FileGrants } from './file-grants';
import { DeskError } from './services';
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

/** A PEM private key of 8192 bits, encrypted, is under 7 KB; anything much larger is not a key file. */
const MAX_KEY_FILE_BYTES = 64 * 1024;

async function readKeyFile(path: string, fileName: string): Promise<string> {
  const file = await open(path, 'r').catch((error: unknown) => {
    throw new DeskError('FILE_UNREADABLE', `${fileName} could not be read: ${(error as NodeJS.ErrnoException).code ?? 'error'}`);
  });
  try {
    const { size } = await file.stat();
    if (size > MAX_KEY_FILE_BYTES) throw new DeskError('FILE_TYPE', `${fileName} is ${Math.ceil(size / 1024)} KB: too large for a private key file`);
    return await file.readFile('utf8');
  } finally {
    await file.close();
  }
}

export interface KeyFiles {
  grants: FileGrants;
  /** Absent where no window can show a dialog (CLI, tests): a backup then answers DIALOG_UNAVAILABLE. */
  dialogs?: DialogPort;
}

export function keysService(rt: DeskRuntime, demo: DemoController | null, files: KeyFiles): ProfileAreaService<'keys'> {
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
    async import(profile, { file, passphrase }) {
      const { path, fileName } = files.grants.resolve(file, 'key');
      const record = await keys.importKey(profile.id, await readKeyFile(path, fileName), passphrase);
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
    async backup(profile, { keyId, passphrase, confirmed }) {
      const record = keys.keyRecord(profile.id, keyId);
      // The key is encrypted (and the confirmation checked) before a dialog opens: a refusal costs no dialog.
      const pem = await keys.backupPem(profile.id, record.keyId, passphrase, confirmed);
      if (!files.dialogs) throw new DeskError('DIALOG_UNAVAILABLE', 'This desk cannot show a save dialog; use "payout-desk keys backup --out <file>"');
      const target = await files.dialogs.chooseSavePath({
        title: 'Save the encrypted key backup',
        defaultFileName: `${profile.id}-${record.keyId}.backup.pem`,
        filters: [{ name: 'Encrypted PEM', extensions: ['pem'] }],
      });
      if (target === null) return { saved: false };
      // wx: never overwrite an existing file; 0600: the backup is for this user only. No folder is made.
      await writeFile(target, pem, { flag: 'wx', mode: 0o600 }).catch((error: unknown) => {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'EEXIST') throw new DeskError('FILE_EXISTS', `${target} already exists and a backup never replaces a file; choose a new name`);
        if (code === 'ENOENT') throw new DeskError('FOLDER_MISSING', `The folder for ${target} does not exist; choose an existing folder`);
        throw new DeskError('FILE_UNWRITABLE', `The backup could not be written to ${target}: ${code ?? 'error'}`);
      });
      return { saved: true, path: target, fingerprint: record.fingerprint };
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
