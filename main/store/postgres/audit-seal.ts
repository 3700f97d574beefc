// The team's audit log, signed per desk. Every desk of a team appends to one chain in the team database
// (PgJournal.appendAudit); anyone who can write that database could rewrite an unkeyed chain and recompute
// it, and a shared HMAC key would be a secret handed from desk to desk. So each desk signs the entries it
// writes with an Ed25519 key of its own, kept in its own keychain; the public halves are registered in the
// database (audit_signers, append-only), and any desk checks every desk's entries.
//
// The keychain of each desk, per team (the team database's random id, team_identity):
//   team:<teamId>:audit-signer  this desk's private key, PKCS#8 DER, base64 (never in the database or a file)
//   team:<teamId>:audit-head    {"seq","hash","sealedFrom","signers":{keyId: seq}}: the newest entry this desk
//                               wrote or verified intact, the first signed entry, and the signer keys it knew
// A key id is the first 128 bits of SHA-256 of the public key (audit-log.ts auditSignerId), so pinning the id
// pins the key. Each pinned key carries the last entry it cannot have signed: 0 for the keys known when this
// desk first anchored, else the seq this desk had anchored before it first saw the key (the key was not
// registered then, and a desk registers its key in the transaction of its first signed entry). A key not
// pinned at all cannot have signed entries up to the anchor. So history rewritten below a desk's anchor and
// signed with a key added since is caught at that desk, and so is any change of the anchored entry.
//
// Anchor rule (as main/store/sqlite/audit-seal.ts): after each of this desk's audit entries commits, and after a
// verification that finds the log intact, the anchor moves to that entry; keychain writes are coalesced,
// one at a time, and close() waits for them (the runtime flushes first).
//
// Who is a desk of the team: audit_signers is a table anyone who can write the database can add a row to, so
// with dual control on it is not enough. A key is the team's only when the verified control chain registers it
// (a `desk` record an admin signed, main/trust/chain-state.ts: same key id, same public key), and an entry whose
// actor names a registered desk (`<user>@<desk>`) must be signed by that desk's key. Entries signed by a key no
// admin registered read UNREGISTERED_SIGNER: never intact, but said apart from "Tampered" (main/desk/audit.ts),
// because a desk that has just joined signs its first entries before an admin can have registered it; an admin
// compares the key's fingerprint with that desk (`team desks` there) and registers it (`team register-desk`).
// With dual control off, audit_signers is taken as it stands (no admin exists to register anything).
import { createPrivateKey, createPublicKey, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import type { Pool, PoolClient } from 'pg';
import { z } from 'zod';
import {
  auditSignerId, GENESIS_HASH, verifyAuditRows, type AuditProblem, type AuditRow, type AuditSigner, type AuditVerifyResult, type RegisteredSigner,
} from '../../audit/chain';
import { pgInteger, type PgQueryable } from './history';
import type { AuditWritten, PgJournal } from './journal';
import { inTransaction } from './transaction';
import { readKeychainJson, type KeyStore } from '../../keys/key-store';
import type { Logger } from '../../log';
import type { DeskAuditSeal } from '../../audit/seal';
import type { RegisteredDesk } from '../../trust/chain-state';
import { AnchorWriter } from '../../audit/anchor-writer';

export const teamAuditSignerAccount = (teamId: string) => `team:${teamId}:audit-signer`;
export const teamAuditAnchorAccount = (teamId: string) => `team:${teamId}:audit-head`;

/** Rows read per query while walking the log. */
const CHUNK = 5_000;
const LOG_NAME = "the team's audit log";

const AnchorSchema = z.object({
  seq: z.number().int().min(0),
  hash: z.string().regex(/^[0-9a-f]{64}$/),
  sealedFrom: z.number().int().min(1),
  signers: z.record(z.string().regex(/^[0-9a-f]{32}$/), z.number().int().min(0)),
});
/** What a desk's keychain pins of its team's log (see the top of this file). */
export type TeamAuditAnchor = z.infer<typeof AnchorSchema>;

/** The anchor in the keychain; null when there is none, or it is not one (treated as missing). */
export function readTeamAuditAnchor(keyStore: KeyStore, teamId: string): Promise<TeamAuditAnchor | null> {
  return readKeychainJson(keyStore, teamAuditAnchorAccount(teamId), AnchorSchema);
}

/** The team database's id (migration 8 makes it). */
export async function readTeamId(db: PgQueryable): Promise<string> {
  const row = (await db.query<{ team_id: string }>('SELECT team_id FROM team_identity')).rows[0];
  if (!row) throw new Error('the team database has no team id (team_identity is empty): it was changed by hand');
  return row.team_id;
}

/** This desk's signer for the team, from its keychain (made there the first time). */
async function loadSigner(keyStore: KeyStore, teamId: string): Promise<{ signer: AuditSigner; publicKey: string; created: boolean }> {
  const account = teamAuditSignerAccount(teamId);
  let stored = await keyStore.get(account);
  let created = false;
  if (!stored) {
    const { privateKey } = generateKeyPairSync('ed25519');
    await keyStore.set(account, privateKey.export({ format: 'der', type: 'pkcs8' }).toString('base64'));
    // Another process of this desk may have made one at the same moment: whichever the keychain kept is the key.
    stored = await keyStore.get(account);
    if (!stored) throw new Error(`The ${keyStore.description} did not keep this desk's key for the team's audit log`);
    created = true;
  }
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey({ key: Buffer.from(stored, 'base64'), format: 'der', type: 'pkcs8' });
  } catch {
    throw new Error(`The ${keyStore.description} entry ${account} is not a private key: this desk cannot sign the team's audit log`);
  }
  if (privateKey.asymmetricKeyType !== 'ed25519') throw new Error(`The ${keyStore.description} entry ${account} is not an Ed25519 key`);
  const spki = createPublicKey(privateKey).export({ format: 'der', type: 'spki' });
  return {
    signer: { keyId: auditSignerId(spki), sign: (data) => sign(null, Buffer.from(data), privateKey).toString('base64') },
    publicKey: spki.toString('base64'),
    created,
  };
}

interface SignerRow {
  key_id: string;
  public_key: string;
  desk_name: string;
}

/** The Ed25519 public key (SPKI DER, base64) when it is the key `keyId` names; null otherwise. */
function signerKey(publicKey: string, keyId: string): KeyObject | null {
  try {
    const key = createPublicKey({ key: Buffer.from(publicKey, 'base64'), format: 'der', type: 'spki' });
    return key.asymmetricKeyType === 'ed25519' && auditSignerId(key.export({ format: 'der', type: 'spki' })) === keyId ? key : null;
  } catch {
    return null;
  }
}

/** A registered signer as verification uses it: its key only when it is the key its id names. */
function registeredSigner(row: SignerRow): RegisteredSigner {
  return { deskName: row.desk_name, publicKey: signerKey(row.public_key, row.key_id) };
}

/** The team's registered signers, as the walk of audit-log.ts takes them (trust.signers, with teamAuditRow's rows). */
export async function readAuditSigners(db: PgQueryable): Promise<Map<string, RegisteredSigner>> {
  const rows = (await db.query<SignerRow>('SELECT key_id, public_key, desk_name FROM audit_signers ORDER BY registered_at, key_id')).rows;
  return new Map(rows.map((r) => [r.key_id, registeredSigner(r)]));
}

/**
 * The signers with dual control on: a key is admitted (the team's) only when an admin registered its id with
 * the same public key, and then carries the name the admin registered. A key the chain registers whose row is
 * gone from audit_signers still checks the entries it signed: the admin's record is what counts.
 */
export function admitSigners(signers: ReadonlyMap<string, RegisteredSigner>, desks: readonly RegisteredDesk[]): { signers: Map<string, RegisteredSigner>; names: Set<string> } {
  const registered = new Map<string, { deskName: string; key: KeyObject }>();
  for (const d of desks) {
    const key = signerKey(d.publicKey, d.keyId);
    if (key) registered.set(d.keyId, { deskName: d.deskName, key });
  }
  const admitted = new Map<string, RegisteredSigner>();
  for (const [keyId, s] of signers) {
    const r = registered.get(keyId);
    admitted.set(keyId, r && s.publicKey?.equals(r.key) ? { deskName: r.deskName, publicKey: s.publicKey, admitted: true } : { ...s, admitted: false });
  }
  for (const [keyId, r] of registered) if (!admitted.has(keyId)) admitted.set(keyId, { deskName: r.deskName, publicKey: r.key, admitted: true });
  return { signers: admitted, names: new Set([...registered.values()].map((r) => r.deskName)) };
}

/** A key of the team's audit signers, for `team desks` (main/cli/team-desks.ts). */
export interface TeamSignerView {
  keyId: string;
  /** The key id in groups of four, to read out and compare with the desk itself. */
  fingerprint: string;
  /** The public key (SPKI DER, base64) as audit_signers holds it; null when only the chain has it. */
  publicKey: string | null;
  /** Whether the public key is the key its id names (false: its row was replaced). */
  keyValid: boolean;
  /** The name the desk gave itself in audit_signers; null when only the chain has it. */
  deskName: string | null;
  /** When the desk registered it in audit_signers (ms); null when only the chain has it. */
  addedAt: number | null;
  /** With dual control on: whether an admin registered it (same key); null while dual control is off. */
  registered: boolean | null;
  /** The name an admin registered it under, and who and when. */
  registration: { deskName: string; by: string; at: number } | null;
  /** It is this desk's own key. */
  thisDesk: boolean;
}

/** A desk's audit key id in groups of four (the id is 128 bits of the key's SHA-256: comparing it compares the key). */
export function deskKeyFingerprint(keyId: string): string {
  return keyId.match(/.{1,4}/g)?.join(':') ?? keyId;
}

/** Reads in one snapshot (a consistent view: every key that signed a row read is among the signers read). */
function inSnapshot<T>(pool: Pool, fn: (client: PoolClient) => Promise<T>): Promise<T> {
  return inTransaction(pool, fn, 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
}

/**
 * The anchor after `head` (an entry this desk wrote or verified), over what the keychain holds now: the newer
 * of the two, and every key registered now pinned; a key first seen now cannot have signed up to the previous
 * anchor (its signers were read after that entry, without it).
 */
function nextAnchor(existing: TeamAuditAnchor | null, head: AuditWritten, signerIds: readonly string[], sealedFrom: number): TeamAuditAnchor {
  const base = existing && existing.seq >= head.seq ? existing : head;
  const signers = { ...(existing?.signers ?? {}) };
  for (const id of signerIds) if (!(id in signers)) signers[id] = existing?.seq ?? 0;
  return { seq: base.seq, hash: base.hash, sealedFrom: existing?.sealedFrom ?? sealedFrom, signers };
}

export interface TeamAuditSealOptions {
  pool: Pool;
  journal: PgJournal;
  keyStore: KeyStore;
  log: Logger;
  /** This desk's name among the team, recorded with its key. */
  deskName: string;
  /**
   * The desks an admin registered in the verified control chain; null while dual control is off (then
   * audit_signers is taken as it stands). Read at each verification, never while opening.
   */
  registeredDesks?: (() => Promise<readonly RegisteredDesk[] | null>) | undefined;
}

export class TeamAuditSeal implements DeskAuditSeal {
  /** The newest entry waiting to be anchored. */
  private target: AuditWritten | null = null;
  private anchorSeq: number;
  private readonly anchors = new AnchorWriter(() => this.writeAnchor());
  private readonly detach: () => void;

  private constructor(
    private readonly pool: Pool,
    private readonly keyStore: KeyStore,
    private readonly log: Logger,
    readonly teamId: string,
    /** This desk's key id. */
    readonly keyId: string,
    private readonly sealedFrom: number,
    anchor: TeamAuditAnchor,
    journal: PgJournal,
    private readonly registeredDesks: () => Promise<readonly RegisteredDesk[] | null>,
  ) {
    this.anchorSeq = anchor.seq;
    this.detach = journal.onAuditAppended((entry) => this.schedule(entry));
  }

  /**
   * Reads (or makes) this desk's signing key for the team, registers it (with an `audit.signer-added` entry)
   * the first time, has the journal sign with it from now on, and anchors. Throws when the keychain cannot be
   * read: the journal then keeps refusing audit entries.
   */
  static async open(options: TeamAuditSealOptions): Promise<TeamAuditSeal> {
    const { pool, journal, keyStore, log, deskName } = options;
    const teamId = await readTeamId(pool);
    const { signer, publicKey, created } = await loadSigner(keyStore, teamId);
    const registered = await journal.registerAuditSigner(signer, { publicKey, deskName });
    journal.useAuditSigner(signer);

    let anchor = await readTeamAuditAnchor(keyStore, teamId);
    // Registered before with this key, yet no anchor: the keychain lost it (or a crash came between).
    const anchorLost = anchor === null && !created && registered === null;
    const now = await inSnapshot(pool, async (client) => {
      const head = (await client.query('SELECT seq, hash FROM audit_log ORDER BY seq DESC LIMIT 1')).rows[0];
      const first = (await client.query('SELECT MIN(seq) AS seq FROM audit_log WHERE key_id IS NOT NULL')).rows[0];
      const ids = (await client.query<{ key_id: string }>('SELECT key_id FROM audit_signers')).rows.map((r) => r.key_id);
      return {
        head: head ? { seq: pgInteger(head.seq, 'seq'), hash: head.hash as string } : { seq: 0, hash: GENESIS_HASH },
        firstSigned: first?.seq === null || first?.seq === undefined ? null : pgInteger(first.seq, 'seq'),
        signerIds: ids,
      };
    });
    const sealedFrom = anchor?.sealedFrom ?? now.firstSigned ?? now.head.seq + 1;
    if (!anchor) {
      // Trust on first use: what the log holds when this desk first meets it is what it anchors.
      anchor = nextAnchor(null, now.head, now.signerIds, sealedFrom);
      await keyStore.set(teamAuditAnchorAccount(teamId), JSON.stringify(anchor));
    }
    const seal = new TeamAuditSeal(pool, keyStore, log, teamId, signer.keyId, sealedFrom, anchor, journal, options.registeredDesks ?? (async () => null));
    // Written before the seal listened: anchored now.
    if (registered) seal.schedule({ seq: registered.seq, hash: registered.hash });
    if (anchorLost) {
      await journal.audit({
        action: 'audit.reanchored',
        details: { reason: `the ${keyStore.description} held no anchor for the team's audit log; entries removed before now cannot be detected`, anchoredSeq: anchor.seq },
      });
    }
    await seal.flush();
    return seal;
  }

  /**
   * Walks the whole log in one snapshot: the chain, every signature under its desk's registered key, and the
   * keychain's anchor and pinned keys. An intact log moves the anchor to its newest entry.
   */
  async verify(): Promise<AuditVerifyResult> {
    await this.flush();
    const anchor = await readTeamAuditAnchor(this.keyStore, this.teamId);
    // Read before the log: a desk an admin registers meanwhile is only reported unregistered, never the reverse.
    const desks = await this.registeredDesks();
    const { rows, signers: listed } = await inSnapshot(this.pool, async (client) => {
      const read: AuditRow[] = [];
      for (let after = 0; ; ) {
        const chunk = await client.query('SELECT * FROM audit_log WHERE seq > $1 ORDER BY seq LIMIT $2', [after, CHUNK]);
        for (const r of chunk.rows) read.push(teamAuditRow(r));
        if (chunk.rows.length < CHUNK) break;
        after = read.at(-1)!.seq;
      }
      return { rows: read, signers: await readAuditSigners(client) };
    });
    const admitted = desks ? admitSigners(listed, desks) : null;
    const signers = admitted?.signers ?? listed;
    const walk = verifyAuditRows(rows, { seq: 0, hash: GENESIS_HASH }, {
      keys: new Map(),
      anchor: anchor && { seq: anchor.seq, hash: anchor.hash, sealedFrom: anchor.sealedFrom },
      keychain: this.keyStore.description,
      logName: LOG_NAME,
      signers,
      ...(anchor ? { signerPins: new Map(Object.entries(anchor.signers)) } : {}),
      ...(admitted ? { registeredDeskNames: admitted.names } : {}),
    }, () => null);
    const problems: AuditProblem[] = [...walk.problems];
    // A replaced key row is tampering even when no entry was signed under it (the table is append-only).
    const used = new Set(rows.map((r) => r.key_id));
    for (const [keyId, s] of signers) {
      if (s.publicKey === null && !used.has(keyId)) {
        problems.push({ seq: null, code: 'SIGNER_REPLACED', message: `the public key registered for desk ${s.deskName} under key id ${keyId} is not the key that id names: its row in audit_signers was replaced` });
      }
    }
    problems.sort((a, b) => (a.seq ?? Number.MAX_SAFE_INTEGER) - (b.seq ?? Number.MAX_SAFE_INTEGER));
    if (problems.length === 0 && walk.entries > 0) {
      this.schedule({ seq: walk.mark.seq, hash: walk.mark.hash });
      await this.flush();
    }
    return { ok: problems.length === 0, entries: walk.entries, problems };
  }

  /**
   * The team's audit signer keys (audit_signers), each with whether an admin registered it (dual control on),
   * then any key the control chain registers that audit_signers lacks.
   */
  async desks(): Promise<TeamSignerView[]> {
    const desks = await this.registeredDesks();
    const rows = (await this.pool.query<SignerRow & { registered_at: string | number }>('SELECT key_id, public_key, desk_name, registered_at FROM audit_signers ORDER BY registered_at, key_id')).rows;
    const listed = new Map(rows.map((r) => [r.key_id, registeredSigner(r)]));
    const admitted = desks ? admitSigners(listed, desks).signers : null;
    const registrationOf = (keyId: string) => {
      const d = desks?.find((x) => x.keyId === keyId);
      return d ? { deskName: d.deskName, by: d.registeredBy, at: d.registeredAt } : null;
    };
    const views: TeamSignerView[] = rows.map((r) => ({
      keyId: r.key_id, fingerprint: deskKeyFingerprint(r.key_id), publicKey: r.public_key, keyValid: listed.get(r.key_id)?.publicKey != null,
      deskName: r.desk_name, addedAt: pgInteger(r.registered_at, 'registered_at'),
      registered: admitted ? admitted.get(r.key_id)?.admitted === true : null,
      registration: registrationOf(r.key_id), thisDesk: r.key_id === this.keyId,
    }));
    for (const d of desks ?? []) {
      if (listed.has(d.keyId)) continue;
      views.push({
        keyId: d.keyId, fingerprint: deskKeyFingerprint(d.keyId), publicKey: null, keyValid: signerKey(d.publicKey, d.keyId) !== null,
        deskName: null, addedAt: null, registered: admitted?.get(d.keyId)?.admitted === true, registration: registrationOf(d.keyId), thisDesk: d.keyId === this.keyId,
      });
    }
    return views;
  }

  /** Waits until the anchor names the newest entry written (or verified) so far. */
  flush(): Promise<void> {
    return this.anchors.flush();
  }

  close(): void {
    this.detach();
  }

  private schedule(entry: AuditWritten): void {
    if (!this.target || entry.seq > this.target.seq) this.target = entry;
    this.anchors.request();
  }

  private async writeAnchor(): Promise<void> {
    const target = this.target;
    this.target = null;
    if (!target || target.seq <= this.anchorSeq) return;
    try {
      const existing = await readTeamAuditAnchor(this.keyStore, this.teamId);
      // Read after the entry committed, so every key that signed up to it is among them.
      const signerIds = (await this.pool.query<{ key_id: string }>('SELECT key_id FROM audit_signers')).rows.map((r) => r.key_id);
      const anchor = nextAnchor(existing, target, signerIds, this.sealedFrom);
      await this.keyStore.set(teamAuditAnchorAccount(this.teamId), JSON.stringify(anchor));
      this.anchorSeq = anchor.seq;
    } catch (error) {
      // The entry is in the log; only its anchor lags. The next entry tries again.
      this.log.error("could not anchor the newest entry of the team's audit log in the keychain", { seq: target.seq, error });
    }
  }
}

/** An audit_log row of the team database in the shape the walk of audit-log.ts reads. */
export function teamAuditRow(r: Record<string, unknown>): AuditRow {
  const text = (v: unknown) => (v === null || v === undefined ? null : String(v));
  return {
    seq: pgInteger(r['seq'], 'seq'), at: pgInteger(r['at'], 'at'), actor: String(r['actor']), action: String(r['action']),
    subject: text(r['subject']), details_json: String(r['details_json']), prev_hash: String(r['prev_hash']),
    hash: String(r['hash']), key_id: text(r['key_id']), signature: text(r['signature']),
  };
}
