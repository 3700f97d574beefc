// Profiles and key metadata in the app database `<home>/desk.db` (better-sqlite3). Other modules
// may add their own tables to the same file; this module owns `profiles`, `profile_keys` and
// `app_settings`. No key or gateway secret is ever written here (the callback path secret is kept here
// on purpose: see profile-schema.ts).
import Database from 'better-sqlite3';
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import * as z from '../zod-mini';
import type { SecurityActionReporter } from '../audit/security-action';
import {
  ProfileInputSchema,
  profileRuleProblem,
  slugifyProfileName,
  type KeyRecord,
  type KeySource,
  type KeyStatus,
  type Profile,
  type ProfileInput,
  type ProfilePatch,
} from './profile-schema';
import { CodedError } from '../domain/coded-error';

export class ProfileError extends CodedError<'PROFILE_INVALID' | 'PROFILE_NOT_FOUND' | 'PROFILE_EXISTS' | 'KEY_NOT_FOUND' | 'KEY_STATE' | 'ENVIRONMENT_FIXED'> {}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS profiles (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL UNIQUE,
  data TEXT NOT NULL,
  active_key_id TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS profile_keys (
  profile_id TEXT NOT NULL REFERENCES profiles(id) ON DELETE CASCADE,
  key_id TEXT NOT NULL,
  created_at TEXT NOT NULL,
  fingerprint TEXT NOT NULL,
  bits INTEGER NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('active','standby','retired')),
  source TEXT NOT NULL,
  retired_at TEXT,
  PRIMARY KEY (profile_id, key_id)
);
CREATE TABLE IF NOT EXISTS app_settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);
`;

type StoredFields = Omit<Profile, 'id' | 'activeKeyId' | 'createdAt' | 'updatedAt'>;
const StoredFieldsSchema = z.omit(ProfileInputSchema, { id: true });

interface ProfileRow {
  id: string;
  data: string;
  active_key_id: string | null;
  created_at: string;
  updated_at: string;
}
interface KeyRow {
  profile_id: string;
  key_id: string;
  created_at: string;
  fingerprint: string;
  bits: number;
  status: KeyStatus;
  source: KeySource;
  retired_at: string | null;
}

function describeZod(error: z.core.$ZodError): string {
  return error.issues.map((i) => `${i.path.join('.') || 'profile'}: ${i.message}`).join('; ');
}

export class ProfileStore {
  private readonly db: Database.Database;
  private findById: Database.Statement | undefined;
  /** Parsed profiles by id, with the stored text they came from. */
  private readonly parsed = new Map<string, { data: string; profile: Profile }>();

  /** `audit` hears every profile added, changed or removed (see main/audit/security-trail.ts). */
  constructor(file: string, private readonly audit?: SecurityActionReporter) {
    if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
    this.db = new Database(file);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('foreign_keys = ON');
    this.db.pragma('busy_timeout = 5000');
    this.db.exec(SCHEMA);
  }

  /** The underlying connection, for modules that add tables to the same file. */
  get database(): Database.Database {
    return this.db;
  }

  add(input: ProfileInput): Profile {
    const parsed = ProfileInputSchema.safeParse(input);
    if (!parsed.success) throw new ProfileError('PROFILE_INVALID', `Invalid profile: ${describeZod(parsed.error)}`);
    const { id: givenId, ...given } = parsed.data;
    const fields = { ...given, callbackSecret: given.callbackSecret ?? newCallbackSecret() };
    const rule = profileRuleProblem(fields);
    if (rule) throw new ProfileError('PROFILE_INVALID', `Invalid profile: ${rule}`);
    const id = givenId ?? this.freeId(slugifyProfileName(fields.name));
    if (this.find(id)) throw new ProfileError('PROFILE_EXISTS', `A profile with id "${id}" already exists`);
    if (this.findByName(fields.name)) throw new ProfileError('PROFILE_EXISTS', `A profile named "${fields.name}" already exists`);
    const now = new Date().toISOString();
    this.db
      .prepare('INSERT INTO profiles (id, name, data, active_key_id, created_at, updated_at) VALUES (?, ?, ?, NULL, ?, ?)')
      .run(id, fields.name, JSON.stringify(fields), now, now);
    if (!this.currentId()) this.setCurrent(id);
    const added = this.get(id);
    this.audit?.report({ profileId: id, action: 'profile.added', subject: id, details: { name: added.name, environment: added.environment, baseUrl: added.baseUrl, merchantCode: added.merchantCode } });
    return added;
  }

  list(): Profile[] {
    const rows = this.db.prepare('SELECT * FROM profiles ORDER BY name').all() as ProfileRow[];
    return rows.map((r) => this.fromRow(r));
  }

  find(id: string): Profile | undefined {
    this.findById ??= this.db.prepare('SELECT * FROM profiles WHERE id = ?');
    const row = this.findById.get(id) as ProfileRow | undefined;
    return row ? this.fromRow(row) : undefined;
  }

  findByName(name: string): Profile | undefined {
    const row = this.db.prepare('SELECT * FROM profiles WHERE name = ?').get(name) as ProfileRow | undefined;
    return row ? this.fromRow(row) : undefined;
  }

  get(id: string): Profile {
    const profile = this.find(id);
    if (!profile) throw new ProfileError('PROFILE_NOT_FOUND', `No profile with id "${id}" (see "profiles list")`);
    return profile;
  }

  /** Looks a profile up by id or, failing that, by exact name. */
  resolve(idOrName: string): Profile {
    const profile = this.find(idOrName) ?? this.findByName(idOrName);
    if (!profile) throw new ProfileError('PROFILE_NOT_FOUND', `No profile "${idOrName}" (see "profiles list")`);
    return profile;
  }

  /**
   * Changes the fields the patch names. The environment is fixed when a profile is created: the default
   * approval policy follows it and TEST lifts the https rule, so a LIVE profile turned TEST (or the other way)
   * would be another profile under the same records. Refused here, so every door (settings, CLI, IPC) is shut.
   * `by` goes into the audit entry's details (who changed it, under dual control).
   */
  /** Refuses a change of environment (ENVIRONMENT_FIXED): it is fixed when a profile is created. */
  assertEnvironmentKept(id: string, patch: Pick<ProfilePatch, 'environment'>): void {
    const current = this.get(id);
    if (patch.environment !== undefined && patch.environment !== current.environment) {
      throw new ProfileError(
        'ENVIRONMENT_FIXED',
        `Profile "${current.name}" is ${current.environment}: the environment is fixed when a profile is created; create a new profile for ${patch.environment}`,
      );
    }
  }

  update(id: string, patch: ProfilePatch, by: Record<string, unknown> = {}): Profile {
    const current = this.get(id);
    const parsed = parsePatch(patch);
    this.assertEnvironmentKept(id, parsed);
    const fields: StoredFields = { ...this.storedFields(current), ...parsed };
    const rule = profileRuleProblem(fields);
    if (rule) throw new ProfileError('PROFILE_INVALID', `Invalid profile change: ${rule}`);
    if (fields.name !== current.name && this.findByName(fields.name)) {
      throw new ProfileError('PROFILE_EXISTS', `A profile named "${fields.name}" already exists`);
    }
    this.db
      .prepare('UPDATE profiles SET name = ?, data = ?, updated_at = ? WHERE id = ?')
      .run(fields.name, JSON.stringify(fields), new Date().toISOString(), id);
    const updated = this.get(id);
    const changes = profileChanges(current, updated);
    if (changes.length > 0) this.audit?.report({ profileId: id, action: 'profile.updated', subject: id, details: { ...by, changes } });
    return updated;
  }

  /** Takes the profile off this desk; `by` goes into the audit entry's details (who removed it). */
  remove(id: string, by: Record<string, unknown> = {}): void {
    const removed = this.get(id);
    this.db.prepare('DELETE FROM profiles WHERE id = ?').run(id);
    if (this.currentId() === id) this.db.prepare("DELETE FROM app_settings WHERE key = 'currentProfile'").run();
    // Written to the removed profile's own journal, which stays on disk with its audit log.
    this.audit?.report({ profileId: id, action: 'profile.removed', subject: id, details: { ...by, name: removed.name, environment: removed.environment } });
  }

  currentId(): string | null {
    const row = this.db.prepare("SELECT value FROM app_settings WHERE key = 'currentProfile'").get() as { value: string } | undefined;
    return row && this.find(row.value) ? row.value : null;
  }

  setCurrent(id: string): void {
    this.get(id);
    this.db.prepare("INSERT INTO app_settings (key, value) VALUES ('currentProfile', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value").run(id);
  }

  // ---- key metadata -------------------------------------------------------------------------

  addKey(record: Omit<KeyRecord, 'retiredAt'>): KeyRecord {
    this.get(record.profileId);
    this.db
      .prepare(
        'INSERT INTO profile_keys (profile_id, key_id, created_at, fingerprint, bits, status, source, retired_at) VALUES (?, ?, ?, ?, ?, ?, ?, NULL)',
      )
      .run(record.profileId, record.keyId, record.createdAt, record.fingerprint, record.bits, record.status, record.source);
    if (record.status === 'active') this.setActiveKey(record.profileId, record.keyId);
    return this.getKey(record.profileId, record.keyId);
  }

  listKeys(profileId: string): KeyRecord[] {
    const rows = this.db.prepare('SELECT * FROM profile_keys WHERE profile_id = ? ORDER BY created_at, key_id').all(profileId) as KeyRow[];
    return rows.map(keyFromRow);
  }

  getKey(profileId: string, keyId: string): KeyRecord {
    const row = this.db.prepare('SELECT * FROM profile_keys WHERE profile_id = ? AND key_id = ?').get(profileId, keyId) as KeyRow | undefined;
    if (!row) throw new ProfileError('KEY_NOT_FOUND', `Profile "${profileId}" has no key "${keyId}" (see "keys list")`);
    return keyFromRow(row);
  }

  /** Makes one key active; the previously active key becomes standby (still registered, still kept). */
  setActiveKey(profileId: string, keyId: string): void {
    const key = this.getKey(profileId, keyId);
    if (key.status === 'retired') throw new ProfileError('KEY_STATE', `Key "${keyId}" is retired and cannot be made active`);
    this.db.transaction(() => {
      this.db.prepare("UPDATE profile_keys SET status = 'standby' WHERE profile_id = ? AND status = 'active' AND key_id <> ?").run(profileId, keyId);
      this.db.prepare("UPDATE profile_keys SET status = 'active' WHERE profile_id = ? AND key_id = ?").run(profileId, keyId);
      this.db.prepare('UPDATE profiles SET active_key_id = ?, updated_at = ? WHERE id = ?').run(keyId, new Date().toISOString(), profileId);
    })();
  }

  /** Retires a standby key. The active key must be replaced first, so a profile is never left unable to sign by accident. */
  retireKey(profileId: string, keyId: string): KeyRecord {
    const key = this.getKey(profileId, keyId);
    if (key.status === 'active') {
      throw new ProfileError('KEY_STATE', `Key "${keyId}" is the active key; activate another key (keys rotate) before retiring it`);
    }
    if (key.status === 'retired') return key;
    this.db
      .prepare("UPDATE profile_keys SET status = 'retired', retired_at = ? WHERE profile_id = ? AND key_id = ?")
      .run(new Date().toISOString(), profileId, keyId);
    return this.getKey(profileId, keyId);
  }

  close(): void {
    if (this.db.open) this.db.close();
  }

  private freeId(base: string): string {
    let id = base;
    for (let n = 2; this.find(id); n++) id = `${base.slice(0, 36)}-${n}`;
    return id;
  }

  private storedFields(p: Profile): StoredFields {
    const { id: _id, activeKeyId: _a, createdAt: _c, updatedAt: _u, ...fields } = p;
    return fields;
  }

  private fromRow(stored: ProfileRow): Profile {
    let row = stored;
    // The engine looks its profile up many times a second; a row that has not changed is not parsed again.
    const cached = this.parsed.get(row.id);
    if (cached && cached.data === row.data && cached.profile.updatedAt === row.updated_at && cached.profile.activeKeyId === row.active_key_id) {
      return { ...cached.profile, finalStatuses: [...cached.profile.finalStatuses] };
    }
    // Parsing through the schema fills defaults added by later versions for rows written earlier.
    const fields = StoredFieldsSchema.parse(JSON.parse(row.data));
    if (!fields.callbackSecret) {
      // A profile from before callback path secrets gets its own once, kept from then on. Written only
      // over the row as read: another process (app and CLI share the file) that got there first wins.
      fields.callbackSecret = newCallbackSecret();
      const data = JSON.stringify(fields);
      const written = this.db.prepare('UPDATE profiles SET data = ? WHERE id = ? AND data = ?').run(data, row.id, row.data).changes > 0;
      if (!written) return this.get(row.id);
      row = { ...row, data };
    }
    const profile: Profile = { id: row.id, ...fields, activeKeyId: row.active_key_id, createdAt: row.created_at, updatedAt: row.updated_at };
    this.parsed.set(row.id, { data: row.data, profile });
    return { ...profile, finalStatuses: [...profile.finalStatuses] };
  }
}

/** An unguessable callback path segment (256 bits from node:crypto, URL-safe). */
function newCallbackSecret(): string {
  return randomBytes(32).toString('base64url');
}

/** Validates only the fields a patch names; the others keep their stored values. */
function parsePatch(patch: ProfilePatch): Partial<StoredFields> {
  const shape = StoredFieldsSchema.shape;
  const out: Record<string, unknown> = {};
  const problems: string[] = [];
  for (const [key, value] of Object.entries(patch)) {
    if (value === undefined) continue;
    if (!Object.hasOwn(shape, key)) {
      problems.push(`${key}: is not a profile field that can be changed`);
      continue;
    }
    const parsed = shape[key as keyof typeof shape].safeParse(value);
    if (parsed.success) out[key] = parsed.data;
    else problems.push(...parsed.error.issues.map((i) => `${[key, ...i.path].join('.')}: ${i.message}`));
  }
  if (problems.length > 0) throw new ProfileError('PROFILE_INVALID', `Invalid profile change: ${problems.join('; ')}`);
  return out as Partial<StoredFields>;
}

function keyFromRow(row: KeyRow): KeyRecord {
  return {
    profileId: row.profile_id,
    keyId: row.key_id,
    createdAt: row.created_at,
    fingerprint: row.fingerprint,
    bits: row.bits,
    status: row.status,
    source: row.source,
    retiredAt: row.retired_at,
  };
}

/**
 * What a profile update changed, field by field, for the audit log: a list, so a field named like a
 * secret (useDeprecatedSecret) is not dropped by the journal's scrub of secret-looking keys. A text
 * value of such a field is never shown, and a callback URL only up to its host (its path may carry a secret).
 */
export function profileChanges(before: Profile, after: Profile): { field: string; from: unknown; to: unknown }[] {
  const shown = (field: string, value: unknown): unknown => {
    if (typeof value !== 'string') return value;
    if (/secret|token|password|passphrase|key/i.test(field)) return '(hidden)';
    if (/^callback.*url$/i.test(field)) {
      try {
        return new URL(value).origin;
      } catch {
        return '(not a URL)';
      }
    }
    return value;
  };
  const changes: { field: string; from: unknown; to: unknown }[] = [];
  for (const field of Object.keys(after) as (keyof Profile)[]) {
    if (field === 'updatedAt') continue;
    if (JSON.stringify(before[field]) !== JSON.stringify(after[field])) changes.push({ field, from: shown(field, before[field]), to: shown(field, after[field]) });
  }
  return changes;
}
