// Append-only audit log, sealed entry by entry: hash = HMAC-SHA256(audit key, prevHash + canonical JSON
// of the entry), so only a holder of the key (kept in the OS keychain, outside this file) can write an
// entry that verifies. Rows written before keys existed (key_id NULL) keep the old unkeyed chain,
// sha256(prevHash + canonical JSON); the first sealed entry after them is an `audit.rekeyed` entry that
// commits to their head. The newest entry (seq and seal) is anchored in the keychain too
// (main/store/sqlite/audit-seal.ts), so cutting the tail is detected; the copy of the head in the meta table
// only catches an accidental truncation, as anyone who can write the file can rewrite it.
// A team's log (PgJournal) is signed instead: each desk signs the entries it writes with an Ed25519 key of
// its own keychain (a shared HMAC key would be a secret handed from desk to desk); its hash is the unkeyed
// chain's, committing to the signer's key id too, and the public keys are registered in the team database.
// With dual control on, a key is the team's only once an admin registered it in the control chain too
// (main/store/postgres/audit-seal.ts): anyone who can write the database can add a row to audit_signers.
import { createHash, createHmac, verify as verifySignature, type KeyObject } from 'node:crypto';
import { CodedError } from '../domain/coded-error';

export const GENESIS_HASH = '0'.repeat(64);

export interface AuditEntry {
  seq: number;
  at: number;
  actor: string;
  action: string;
  subject: string | null;
  details: unknown;
  prevHash: string;
  hash: string;
}

export interface NewAuditEntry {
  /** Default: the person at this desk (deskActor()). */
  actor?: string | undefined;
  action: string;
  subject?: string | null | undefined;
  details?: unknown;
}

/** A key that seals entries; its id is derived from it (auditKeyId) and stored with each entry. */
export interface AuditKey {
  id: string;
  key: Buffer;
}

/** A desk's key that signs the team's audit entries; the private half stays in that desk's keychain. */
export interface AuditSigner {
  /** auditSignerId of its public key. */
  keyId: string;
  /** The Ed25519 signature (base64) of `data` (auditSigningText of an entry's hash). */
  sign(data: string): string;
}

/** A signer registered in the team database, as a verification uses it. */
export interface RegisteredSigner {
  /** With admitted true, the name an admin registered it under; else the name the desk gave itself. */
  deskName: string;
  /** Null when the registered public key is not the key its id names (its row was replaced). */
  publicKey: KeyObject | null;
  /**
   * With dual control on: whether an admin registered this key (same id, same public key) in the verified
   * control chain; its entries are the team's only then. Undefined: dual control is off and no admin
   * registers desks, so audit_signers is taken as it stands.
   */
  admitted?: boolean;
}

/** What a verification knows from the keychain: the keys it holds and the anchored head, if any. */
export interface AuditTrust {
  /** Keys by id; an entry sealed with a key not here cannot be checked. */
  keys: ReadonlyMap<string, Buffer>;
  /** The head anchored in the keychain; null when the keychain has none; undefined: do not check. */
  anchor?: AuditAnchor | null | undefined;
  /** Names the keychain in messages ("OS keychain (service payout-desk)"). */
  keychain?: string;
  /** Names the log in messages (default "this journal", "the journal"). */
  logName?: string;
  /**
   * A team's log: its registered signers by key id. When given, an entry with a key id is signed (Ed25519
   * over its hash), not sealed with an HMAC key, and `keys` is not used.
   */
  signers?: ReadonlyMap<string, RegisteredSigner>;
  /**
   * With an anchor: per key id, the last entry that key cannot have signed, because it was registered after
   * the keychain anchored that entry. A key id not here was registered after the anchor itself (anchor.seq).
   */
  signerPins?: ReadonlyMap<string, number>;
  /**
   * With dual control on: the names of the desks an admin registered. An entry whose actor names one of them
   * (`<user>@<desk>`, actor.ts) must be signed by a key registered under that name.
   */
  registeredDeskNames?: ReadonlySet<string>;
}

/** The newest entry as last recorded in the keychain; every entry from sealedFrom on must be sealed. */
export interface AuditAnchor {
  seq: number;
  hash: string;
  sealedFrom: number;
}

export type AuditProblemCode =
  | 'HASH_MISMATCH' | 'CHAIN_BROKEN' | 'ENTRIES_MISSING' | 'UNSEALED' | 'TRUNCATED' | 'ANCHOR_MISMATCH' | 'HEAD_MISMATCH'
  // A team's signed log: a signature that does not verify, a key id no desk registered, a registered key
  // replaced, a key registered after the keychain's anchor that signed entries at or before it.
  | 'BAD_SIGNATURE' | 'UNKNOWN_SIGNER' | 'SIGNER_REPLACED' | 'SIGNER_AFTER_ANCHOR'
  // With dual control on: an entry whose actor names a registered desk but is signed by another desk's key.
  | 'ACTOR_NOT_SIGNER'
  // A desk's own journal whose id is not the one pinned for its profile (main/store/sqlite/audit-seal.ts).
  | 'JOURNAL_REPLACED'
  // With dual control on: entries signed by a key no admin registered. Not the team's, but not proof of an
  // edit either (a desk that has just joined signs before an admin registers it): main/desk/audit.ts says so.
  | 'UNREGISTERED_SIGNER'
  // The two below say the log cannot be checked here, not that it was changed.
  | 'KEY_MISSING' | 'ANCHOR_MISSING';

export interface AuditProblem {
  /** The first entry concerned; null when no single entry is (the anchor is missing). */
  seq: number | null;
  code: AuditProblemCode;
  message: string;
}

export interface AuditVerifyResult {
  ok: boolean;
  entries: number;
  problems: AuditProblem[];
}

export class AuditKeyError extends CodedError<'AUDIT_KEY_NEEDED'> {
  constructor(message: string) {
    super('AUDIT_KEY_NEEDED', message);
  }
}

// Keys whose values must never be written to the journal, whoever calls.
const SECRET_KEY = /token|secret|password|passphrase|private.?key|signature|authorization/i;

/** JSON with object keys sorted at every depth and secret-looking fields removed. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(scrub(value));
}

function scrub(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(scrub);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) {
      if (SECRET_KEY.test(key)) continue;
      const inner = (value as Record<string, unknown>)[key];
      if (inner !== undefined) out[key] = scrub(inner);
    }
    return out;
  }
  return value === undefined ? null : value;
}

/** The id stored with each sealed entry: names the key without revealing it. */
export function auditKeyId(key: Buffer): string {
  return createHmac('sha256', key).update('payout-desk audit key id').digest('hex').slice(0, 16);
}

export interface EntryFields {
  seq: number;
  at: number;
  actor: string;
  action: string;
  subject: string | null;
  detailsJson: string;
}

function hashedFields(e: EntryFields) {
  return { seq: e.seq, at: e.at, actor: e.actor, action: e.action, subject: e.subject, details: JSON.parse(e.detailsJson) as unknown };
}

export function entryHash(prevHash: string, e: EntryFields, seal: { id: string; key: Buffer } | null): string {
  const fields = hashedFields(e);
  // A sealed entry also commits to the id of its key, so an entry cannot be passed off as another key's.
  if (!seal) return createHash('sha256').update(prevHash + canonicalJson(fields)).digest('hex');
  return createHmac('sha256', seal.key).update(prevHash + canonicalJson({ ...fields, keyId: seal.id })).digest('hex');
}

/** The hash of a team entry signed with key `keyId`: the unkeyed chain's, committing to the key id too. */
export function signedEntryHash(prevHash: string, e: EntryFields, keyId: string): string {
  return createHash('sha256').update(prevHash + canonicalJson({ ...hashedFields(e), keyId })).digest('hex');
}

/** What a desk signs for an entry: its hash, under a label so the signature means nothing elsewhere. */
export function auditSigningText(hash: string): string {
  return `payout-desk team audit entry ${hash}`;
}

/** A signer's key id: the first 128 bits of SHA-256 of its public key (SPKI DER), so the id names the key. */
export function auditSignerId(spkiDer: Buffer): string {
  return createHash('sha256').update(spkiDer).digest('hex').slice(0, 32);
}

/** Whether `signature` (base64) is `publicKey`'s Ed25519 signature of the entry hash `hash`. */
export function auditSignatureValid(publicKey: KeyObject, hash: string, signature: string): boolean {
  try {
    return verifySignature(null, Buffer.from(auditSigningText(hash)), publicKey, Buffer.from(signature, 'base64'));
  } catch {
    return false;
  }
}

/** An audit_log row as both stores keep it (SQLite's columns; the team journal's read into this shape). */
export interface AuditRow {
  seq: number;
  at: number;
  actor: string;
  action: string;
  subject: string | null;
  details_json: string;
  prev_hash: string;
  hash: string;
  key_id: string | null;
  /** A team entry's Ed25519 signature (base64); SQLite's rows have none. */
  signature?: string | null;
}

/** Where a verification ended: the last entry checked, its hash, and whether sealed entries had begun. */
export interface AuditMark {
  seq: number;
  hash: string;
  sealed?: boolean;
}

const span = (from: number, to: number) => (from === to ? `entry ${from}` : `entries ${from}–${to}`);

/**
 * The walk of verifyAuditFrom over rows read from any store, in seq order after `from`: chain, seals (or a
 * team's signatures, with trust.signers) and the keychain's anchor. `hashAt` reads the hash of an entry at or before `from` (an anchor behind it).
 * Problems come unsorted; the caller adds what only its store can check and sorts.
 */
export function verifyAuditRows(
  rows: Iterable<AuditRow>,
  from: AuditMark,
  trust: AuditTrust,
  hashAt: (seq: number) => string | null,
): { problems: AuditProblem[]; entries: number; mark: AuditMark } {
  const problems: AuditProblem[] = [];
  const anchor = trust.anchor;
  const keychain = trust.keychain ?? 'keychain';
  const logName = trust.logName ?? 'this journal';
  const signers = trust.signers;
  // A team's entries are signed by desks; a single desk's are sealed with its keychain's key.
  const sealWord = signers ? 'signature' : 'seal';
  const sealedWord = signers ? 'signed' : 'sealed';
  let prevHash = from.hash;
  let lastSeq = from.seq;
  let sealed = from.sealed === true;
  let count = 0;
  let anchoredHash: string | null = null;
  // Entries sealed with a key the keychain lacks, grouped into runs for one message each.
  let missing: { keyId: string; from: number; to: number } | null = null;
  const closeMissing = () => {
    if (!missing) return;
    problems.push({
      seq: missing.from, code: 'KEY_MISSING',
      message: `${span(missing.from, missing.to)} were sealed with audit key ${missing.keyId}, which the ${keychain} does not hold (the journal comes from another machine, or the keychain was wiped): they cannot be checked here`,
    });
    missing = null;
  };
  // A team's entries signed by a key no admin registered (dual control on): one problem per key, naming its runs.
  const unadmitted = new Map<string, { deskName: string; runs: [number, number][] }>();
  const noteUnadmitted = (keyId: string, deskName: string, seq: number) => {
    const known = unadmitted.get(keyId) ?? { deskName, runs: [] };
    unadmitted.set(keyId, known);
    const last = known.runs.at(-1);
    if (last && last[1] === seq - 1) last[1] = seq;
    else known.runs.push([seq, seq]);
  };
  const reportUnadmitted = () => {
    for (const [keyId, { deskName, runs }] of unadmitted) {
      const count = runs.reduce((n, [a, b]) => n + b - a + 1, 0);
      const shown = runs.slice(0, 3).map(([a, b]) => (a === b ? `${a}` : `${a}–${b}`)).join(', ');
      const which = `${count === 1 ? 'entry' : 'entries'} ${shown}${runs.length > 3 ? ` and ${runs.length - 3} more run${runs.length > 4 ? 's' : ''} (${count} in all)` : ''}`;
      const sameName = trust.registeredDeskNames?.has(deskName) ? ` (a desk ${deskName} is registered, with another key)` : '';
      problems.push({
        seq: runs[0]![0], code: 'UNREGISTERED_SIGNER',
        message: `${which} ${count === 1 ? 'is' : 'are'} signed by desk ${deskName}'s key ${keyId}${sameName}, which no admin registered: ${count === 1 ? 'it is' : 'they are'} not the team's until an admin who has compared its fingerprint with that desk registers it (team register-desk ${keyId})`,
      });
    }
  };
  for (const row of rows) {
    count++;
    if (row.seq !== lastSeq + 1) {
      problems.push({ seq: lastSeq + 1, code: 'ENTRIES_MISSING', message: `${span(lastSeq + 1, row.seq - 1)} ${row.seq - 1 > lastSeq + 1 ? 'are' : 'is'} missing: entry ${row.seq} follows entry ${lastSeq}` });
    } else if (row.prev_hash !== prevHash) {
      problems.push({ seq: row.seq, code: 'CHAIN_BROKEN', message: `entry ${row.seq} does not follow entry ${lastSeq}: an entry before it was removed, inserted or changed` });
    }
    const mustBeSealed = sealed || (anchor ? row.seq >= anchor.sealedFrom : false);
    if (row.key_id === null) {
      closeMissing();
      if (mustBeSealed) {
        problems.push({
          seq: row.seq, code: 'UNSEALED',
          message: `entry ${row.seq} carries no ${sealWord} although every entry from ${sealed ? `the first ${sealedWord} one` : `entry ${anchor?.sealedFrom ?? '?'}`} on is ${sealedWord}: it was written or rewritten without ${signers ? "a desk's signing key" : 'the audit key'}`,
        });
      } else if (entryHash(row.prev_hash, fieldsOf(row), null) !== row.hash) {
        problems.push({ seq: row.seq, code: 'HASH_MISMATCH', message: `entry ${row.seq} was changed after it was written` });
      }
    } else if (signers) {
      sealed = true;
      const problem = signedEntryProblem(row, row.key_id, signers, anchor ? { seq: anchor.seq, pins: trust.signerPins ?? new Map() } : null, keychain);
      const signer = signers.get(row.key_id);
      if (problem) problems.push(problem);
      else if (signer?.admitted === false) noteUnadmitted(row.key_id, signer.deskName, row.seq);
      else if (signer?.admitted === true && trust.registeredDeskNames) {
        const wrongDesk = actorNotSigner(row, row.key_id, signer.deskName, trust.registeredDeskNames);
        if (wrongDesk) problems.push(wrongDesk);
      }
    } else {
      sealed = true;
      const key = trust.keys.get(row.key_id);
      if (!key) {
        if (missing && missing.keyId === row.key_id && missing.to === row.seq - 1) missing.to = row.seq;
        else {
          closeMissing();
          missing = { keyId: row.key_id, from: row.seq, to: row.seq };
        }
      } else {
        closeMissing();
        if (entryHash(row.prev_hash, fieldsOf(row), { id: row.key_id, key }) !== row.hash) {
          problems.push({ seq: row.seq, code: 'HASH_MISMATCH', message: `entry ${row.seq} was changed after it was written: its seal does not match (the chain was edited or recomputed without the audit key)` });
        }
      }
    }
    if (anchor && row.seq === anchor.seq) anchoredHash = row.hash;
    prevHash = row.hash;
    lastSeq = row.seq;
  }
  closeMissing();
  reportUnadmitted();

  if (anchor === null) {
    if (sealed) {
      problems.push({ seq: null, code: 'ANCHOR_MISSING', message: `the ${keychain} holds no anchor for the newest audit entry of ${logName}, so removal of the newest entries cannot be ruled out` });
    }
  } else if (anchor) {
    if (lastSeq < anchor.seq) {
      problems.push({ seq: lastSeq + 1, code: 'TRUNCATED', message: `the log ends at entry ${lastSeq} but the ${keychain} anchored entry ${anchor.seq}: ${span(lastSeq + 1, anchor.seq)} were removed (or ${trust.logName ?? 'the journal'} was restored from an older copy)` });
    } else if (anchor.seq > 0) {
      anchoredHash ??= anchor.seq <= from.seq ? hashAt(anchor.seq) : null;
      if (anchoredHash !== anchor.hash) {
        problems.push({ seq: anchor.seq, code: 'ANCHOR_MISMATCH', message: `entry ${anchor.seq} is not the entry the ${keychain} anchored: the log was rewritten` });
      }
    }
  }
  return { problems, entries: count, mark: { seq: lastSeq, hash: prevHash, sealed } };
}

/**
 * What is wrong with one signed entry of a team's log, if anything: its hash (contents), its key (registered,
 * not replaced), its signature, and, with the keychain's anchor, whether its key was registered only after
 * this desk had anchored an entry at or after it (history rewritten and signed with a key added later).
 */
function signedEntryProblem(
  row: AuditRow,
  keyId: string,
  signers: ReadonlyMap<string, RegisteredSigner>,
  anchor: { seq: number; pins: ReadonlyMap<string, number> } | null,
  keychain: string,
): AuditProblem | null {
  const seq = row.seq;
  if (signedEntryHash(row.prev_hash, fieldsOf(row), keyId) !== row.hash) {
    return { seq, code: 'HASH_MISMATCH', message: `entry ${seq} was changed after it was written: its hash does not match its contents` };
  }
  const signer = signers.get(keyId);
  if (!signer) {
    // Every desk registers its key before (in the same transaction as) its first signed entry, and the table
    // is append-only: an entry naming a key nobody registered was forged, or the key's row was removed.
    return { seq, code: 'UNKNOWN_SIGNER', message: `entry ${seq} names signing key ${keyId}, which no desk of the team registered: the entry was forged, or that key's row was removed from audit_signers` };
  }
  const whose = `desk ${signer.deskName}'s key ${keyId}`;
  if (!signer.publicKey) {
    return { seq, code: 'SIGNER_REPLACED', message: `entry ${seq} is signed with ${whose}, but the public key registered under that id is not that key: its row in audit_signers was replaced` };
  }
  if (!row.signature) {
    return { seq, code: 'UNSEALED', message: `entry ${seq} names ${whose} but carries no signature: it was written or rewritten without the key` };
  }
  if (!auditSignatureValid(signer.publicKey, row.hash, row.signature)) {
    return { seq, code: 'BAD_SIGNATURE', message: `entry ${seq}'s signature does not verify under ${whose}: the entry was changed (and its hash recomputed) after it was signed` };
  }
  const notUpTo = anchor ? (anchor.pins.get(keyId) ?? anchor.seq) : 0;
  if (seq <= notUpTo) {
    return {
      seq, code: 'SIGNER_AFTER_ANCHOR',
      message: `entry ${seq} is signed with ${whose}, which was registered after the ${keychain} anchored entry ${notUpTo}: entries up to ${notUpTo} were rewritten and signed with a key added later`,
    };
  }
  return null;
}

/**
 * An entry whose actor names a registered desk (`<user>@<desk>`, the last @) must be signed by a key an admin
 * registered under that desk's name: a desk's key vouches for what happened at that desk, not at another.
 * Actors that name no registered desk (a person, the engine, a host name no desk was registered under) are
 * not bound: they claim no other desk.
 */
function actorNotSigner(row: AuditRow, keyId: string, signerDesk: string, registered: ReadonlySet<string>): AuditProblem | null {
  const at = row.actor.lastIndexOf('@');
  if (at <= 0) return null;
  const named = row.actor.slice(at + 1);
  if (named === signerDesk || !registered.has(named)) return null;
  return {
    seq: row.seq, code: 'ACTOR_NOT_SIGNER',
    message: `entry ${row.seq} says ${row.actor} acted, but it is signed by desk ${signerDesk}'s key ${keyId}, not by a key of desk ${named}: one desk wrote in another desk's name`,
  };
}

function fieldsOf(row: AuditRow): EntryFields {
  return { seq: row.seq, at: row.at, actor: row.actor, action: row.action, subject: row.subject, detailsJson: row.details_json };
}

