// keys:* over key custody. Key material stays here: only public keys, fingerprints and file paths
// go back to the renderer. Files are main's business too: an import reads the file the user chose
// (a token from main's dialog or a drop, never PEM text from the page), and a backup is written where
// the user said in main's own save dialog (never a path from the page).
// Once dual control is on, every change of key custody needs an unlocked admin, who is named in its audit
// entry, and a key export needs a second person too (guardedKeys, the one path the CLI takes as well).
import { open, writeFile } from 'node:fs/promises';
import type { KeyView } from '../../contract/api';
import type { SecurityAction, SecurityActionReporter } from '../audit/security-action';
import { KeyCustody, type AddKeyOptions } from '../keys/key-custody';
import { heldRoleAt, type Person } from '../people/roles';
import type { KeyRecord, Profile } from '../profiles/profile-schema';
import { readControlPin } from '../trust/control-pin';
import type { DemoController } from './demo-controller';
import type { DialogPort } from './dialogs';
import { adminFor, dualControlService, ownControlOf } from './dual-control';
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

/**
 * adminFor (the unlocked admin once dual control is on, undefined while it is off), also when the profile's
 * records cannot be read now (its team database unreachable, or mistyped): then this desk's keychain pin says
 * whether dual control was ever on here. If not, nothing changes. If it was, the admin is checked against this
 * desk's own copy of the control records, held against the same pin (so a team database that went away can
 * still be left or replaced by an admin who is unlocked here); without a copy that holds, the change waits.
 */
export async function changeAdmin(rt: DeskRuntime, profileId: string, what: string): Promise<Person | undefined> {
  try {
    return await adminFor(rt, profileId, what);
  } catch (error) {
    if (error instanceof DeskError) throw error;
    if (!(await readControlPin(rt.ctx.keyStore, profileId))) return undefined;
    const own = await ownControlOf(rt, profileId).catch(() => null);
    // The same rule as adminFor, read against the copy (adminFor uses only controlFor and sessionFor).
    if (own && !own.problem) return adminFor({ ...rt, controlFor: async () => own }, profileId, what);
    const reason = error instanceof Error ? error.message : String(error);
    throw new DeskError('CONTROL_UNREADABLE', `Dual control is on for this profile, and who is an admin cannot be checked now (${reason}): ${what} waits until its records can be read; nothing was changed`);
  }
}

/** Who acted, for the details of an audit entry (a person's id and name; never a passphrase). */
export function actedBy(admin: Person | undefined, second?: Person): Record<string, unknown> {
  if (!admin) return {};
  return { person: admin.id, personName: admin.name, ...(second ? { secondPerson: second.id, secondPersonName: second.name } : {}) };
}

/** Key custody whose audit entries name who acted (the same custody: keychain, sealed files, profile store). */
function custodyBy(rt: DeskRuntime, by: Record<string, unknown>): KeyCustody {
  if (Object.keys(by).length === 0) return rt.ctx.keys;
  const { trail } = rt.ctx;
  const stamped = (action: SecurityAction): SecurityAction => ({ ...action, details: { ...action.details, ...by } });
  const audit: SecurityActionReporter = { record: (action) => trail.record(stamped(action)), report: (action) => trail.report(stamped(action)) };
  return new KeyCustody({ home: rt.ctx.home, keyStore: rt.ctx.keyStore, profiles: rt.ctx.profiles, audit });
}

/** A second person of dual control for a key export: who they are, and their own passphrase. */
export interface SecondPerson {
  personId: string;
  passphrase: string;
}

/**
 * Key custody's changes as every door takes them (keys:* over IPC, `keys …` in the CLI). Once dual control is
 * on for the profile, each needs an unlocked admin (LOCKED, NOT_ALLOWED otherwise), named in the audit entry;
 * generating needs one only when the profile already has a key (a first key replaces nothing). Exporting the
 * merchant key needs two people: the admin and a second admin or approver, who proves they are there with
 * their own passphrase. While dual control is off, they are key custody's own, as before.
 */
export interface GuardedKeys {
  generate(profileId: string, bits?: number, options?: AddKeyOptions): Promise<KeyRecord>;
  import(profileId: string, pem: string, passphrase?: string, options?: AddKeyOptions): Promise<KeyRecord>;
  rotate(profileId: string, bits?: number): Promise<{ key: KeyRecord; previousKeyId: string | null }>;
  /** Makes a standby key the active one. */
  activate(profileId: string, keyId: string): Promise<KeyRecord>;
  retire(profileId: string, keyId: string): Promise<KeyRecord>;
  backupPem(profileId: string, keyId: string, passphrase: string, confirmed: boolean, second?: SecondPerson): Promise<string>;
  /** The deprecated merchant secret; `use` also opts the profile in to it. */
  setSecret(profileId: string, secret: string, use?: boolean): Promise<void>;
  /** Removes it from the keychain; `stopUsing` also opts the profile out. */
  clearSecret(profileId: string, stopUsing?: boolean): Promise<boolean>;
}

export function guardedKeys(rt: DeskRuntime): GuardedKeys {
  const { keys, profiles } = rt.ctx;
  const underAdmin = async (profileId: string, what: string) => {
    const admin = await changeAdmin(rt, profileId, what);
    return { by: actedBy(admin), custody: custodyBy(rt, actedBy(admin)) };
  };

  /** The second person of a key export: another person of the verified chain, admin or approver, who unlocks with their own passphrase. */
  const witness = async (profileId: string, admin: Person, second: SecondPerson | undefined): Promise<Person> => {
    if (!second) {
      throw new DeskError('SECOND_PERSON_NEEDED', `Dual control is on: exporting the merchant key needs a second person (an admin or approver other than ${admin.name}) who gives their own passphrase; nothing was exported`);
    }
    if (second.personId === admin.id) {
      throw new DeskError('SECOND_PERSON_NEEDED', `${admin.name} cannot be their own second person: exporting the merchant key needs another admin or approver; nothing was exported`);
    }
    const state = await rt.controlFor(profileId);
    const person = state.people.find((p) => p.id === second.personId);
    if (!person) throw new DeskError('NOT_FOUND', `No person ${second.personId} on this profile; nothing was exported`);
    const now = Date.now();
    if (person.revokedAt !== null || !(heldRoleAt(person, 'admin', now) || heldRoleAt(person, 'approver', now))) {
      throw new DeskError('NOT_ALLOWED', `${person.name} is not an admin or approver now, so cannot be the second person of a key export; nothing was exported`);
    }
    // Their unlock is throttled and audited like any other; it only proves they are here.
    const session = await dualControlService(rt).unlock(profileId, person.id, second.passphrase);
    session.lock();
    return person;
  };

  return {
    async generate(profileId, bits, options = {}) {
      const first = keys.listKeys(profileId).length === 0;
      const custody = first ? keys : (await underAdmin(profileId, 'a new key')).custody;
      return custody.generateKey(profileId, bits, options);
    },
    async import(profileId, pem, passphrase, options = {}) {
      return (await underAdmin(profileId, 'importing a key')).custody.importKey(profileId, pem, passphrase, options);
    },
    async rotate(profileId, bits) {
      return (await underAdmin(profileId, 'rotating the key')).custody.rotate(profileId, bits);
    },
    async activate(profileId, keyId) {
      const record = (await underAdmin(profileId, 'making another key active')).custody.activate(profileId, keyId);
      await rt.ctx.trail.flush();
      return record;
    },
    async retire(profileId, keyId) {
      const record = (await underAdmin(profileId, 'retiring a key')).custody.retire(profileId, keyId);
      await rt.ctx.trail.flush();
      return record;
    },
    async backupPem(profileId, keyId, passphrase, confirmed, second) {
      const admin = await changeAdmin(rt, profileId, 'exporting the merchant key');
      const other = admin ? await witness(profileId, admin, second) : undefined;
      return custodyBy(rt, actedBy(admin, other)).backupPem(profileId, keyId, passphrase, confirmed);
    },
    async setSecret(profileId, secret, use) {
      const { by, custody } = await underAdmin(profileId, 'setting the merchant secret');
      await custody.setDeprecatedSecret(profileId, secret);
      if (use) profiles.update(profileId, { useDeprecatedSecret: true }, by);
      await rt.ctx.trail.flush();
    },
    async clearSecret(profileId, stopUsing = false) {
      const { by, custody } = await underAdmin(profileId, 'removing the merchant secret');
      const removed = await custody.deleteDeprecatedSecret(profileId);
      if (stopUsing && profiles.get(profileId).useDeprecatedSecret) profiles.update(profileId, { useDeprecatedSecret: false }, by);
      await rt.ctx.trail.flush();
      return removed;
    },
  };
}

export interface KeyFiles {
  grants: FileGrants;
  /** Absent where no window can show a dialog (CLI, tests): a backup then answers DIALOG_UNAVAILABLE. */
  dialogs?: DialogPort;
}

export function keysService(rt: DeskRuntime, demo: DemoController | null, files: KeyFiles): ProfileAreaService<'keys'> {
  const { keys } = rt.ctx;
  const guarded = guardedKeys(rt);
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
      const record = await guarded.generate(profile.id, modulusBits);
      await changed(profile);
      return keyView(rt, record);
    },
    async import(profile, { file, passphrase }) {
      const { path, fileName } = files.grants.resolve(file, 'key');
      const record = await guarded.import(profile.id, await readKeyFile(path, fileName), passphrase);
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
      const { key, previousKeyId } = await guarded.rotate(profile.id);
      await changed(profile);
      const previous = previousKeyId ? await keyView(rt, keys.keyRecord(profile.id, previousKeyId)) : null;
      return { active: await keyView(rt, key), previous };
    },
    async retire(profile, { keyId }) {
      const record = await guarded.retire(profile.id, keyId);
      await rt.reset(profile.id);
      return keyView(rt, record);
    },
    async backup(profile, { keyId, passphrase, confirmed, second }) {
      // The key is encrypted (and both people and the confirmation checked, the people first: a desk user learns
      // nothing of the keys) before a dialog opens: a refusal costs no dialog.
      const pem = await guarded.backupPem(profile.id, keyId, passphrase, confirmed, second);
      const record = keys.keyRecord(profile.id, keyId);
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
      await guarded.setSecret(profile.id, secret);
      await rt.reset(profile.id);
      return { hasSecret: true };
    },
    async clearSecret(profile) {
      await guarded.clearSecret(profile.id);
      await rt.reset(profile.id);
      return { hasSecret: await hasSecret(rt, profile.id) };
    },
  };
}
