// The walk of a team's signed audit log (audit-log.ts verifyAuditRows with trust.signers), on rows built here
// with real Ed25519 keys: what each problem code catches, and that honest logs (an unsigned start, desks
// joining between anchors) raise none. The team database's side is in test/integration/postgres/team-audit.test.ts.
import { createPublicKey, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  auditSignerId, auditSigningText, canonicalJson, entryHash, GENESIS_HASH, signedEntryHash, verifyAuditRows, type AuditAnchor, type AuditRow,
  type RegisteredSigner,
} from '../../../main/audit/chain';

interface Key {
  id: string;
  privateKey: KeyObject;
  publicKey: KeyObject;
}

function newKey(): Key {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  return { id: auditSignerId(publicKey.export({ format: 'der', type: 'spki' })), privateKey, publicKey };
}

const A = newKey();
const B = newKey();
const FORGER = newKey();

/** Appends an entry as a desk would: signed by `key`, or unsigned (a log from before signing). */
function append(rows: AuditRow[], key: Key | null, details: unknown = { n: rows.length + 1 }): AuditRow {
  const prev = rows.at(-1);
  const seq = (prev?.seq ?? 0) + 1;
  const fields = { seq, at: 1_000 + seq, actor: 'ada@desk', action: 'test.step', subject: `s${seq}`, detailsJson: canonicalJson(details) };
  const prevHash = prev?.hash ?? GENESIS_HASH;
  const hash = key ? signedEntryHash(prevHash, fields, key.id) : entryHash(prevHash, fields, null);
  const row: AuditRow = {
    seq, at: fields.at, actor: fields.actor, action: fields.action, subject: fields.subject, details_json: fields.detailsJson, prev_hash: prevHash, hash,
    key_id: key?.id ?? null, signature: key ? sign(null, Buffer.from(auditSigningText(hash)), key.privateKey).toString('base64') : null,
  };
  rows.push(row);
  return row;
}

/** Rewrites entries from `seq` on as someone with database access would: contents, chain, and signatures by `key` (or none). */
function rewriteFrom(rows: AuditRow[], seq: number, key: Key | null, details: unknown): AuditRow[] {
  const kept = rows.filter((r) => r.seq < seq);
  for (const r of rows.filter((x) => x.seq >= seq)) append(kept, key, r.seq === seq ? details : JSON.parse(r.details_json));
  return kept;
}

const registered = (...keys: [Key, string][]): Map<string, RegisteredSigner> => new Map(keys.map(([k, deskName]) => [k.id, { deskName, publicKey: k.publicKey }]));
const TEAM = registered([A, 'prep'], [B, 'sender']);

function verify(rows: AuditRow[], options: { signers?: Map<string, RegisteredSigner>; anchor?: AuditAnchor | null; pins?: Map<string, number> } = {}) {
  return verifyAuditRows(rows, { seq: 0, hash: GENESIS_HASH }, {
    keys: new Map(), signers: options.signers ?? TEAM, anchor: options.anchor, keychain: 'test keychain', logName: "the team's audit log",
    ...(options.pins ? { signerPins: options.pins } : {}),
  }, () => null);
}

const anchorAt = (rows: AuditRow[], seq: number, sealedFrom = 1): AuditAnchor => ({ seq, hash: rows.find((r) => r.seq === seq)!.hash, sealedFrom });

/** Six entries: three before signing, then A, B, A. */
function mixedLog(): AuditRow[] {
  const rows: AuditRow[] = [];
  for (let i = 0; i < 3; i++) append(rows, null);
  append(rows, A);
  append(rows, B);
  append(rows, A);
  return rows;
}

describe("a team's signed audit log", () => {
  it('verifies an unsigned start followed by entries of two desks, with and without an anchor', () => {
    const rows = mixedLog();
    expect(verify(rows).problems).toEqual([]);
    expect(verify(rows, { anchor: anchorAt(rows, 6, 4), pins: new Map([[A.id, 0], [B.id, 0]]) }).problems).toEqual([]);
    // B registered after this desk had anchored entry 4: its entries after 4 are fine.
    expect(verify(rows, { anchor: anchorAt(rows, 6, 4), pins: new Map([[A.id, 0], [B.id, 4]]) }).problems).toEqual([]);
  });

  it('names an entry whose contents changed (HASH_MISMATCH), and one whose hash was recomputed too (BAD_SIGNATURE)', () => {
    const rows = mixedLog();
    const edited = rows.map((r) => (r.seq === 5 ? { ...r, details_json: '{"n":99}' } : r));
    expect(verify(edited).problems[0]).toMatchObject({ seq: 5, code: 'HASH_MISMATCH', message: 'entry 5 was changed after it was written: its hash does not match its contents' });
    // The whole chain recomputed by hand from entry 5 on: each entry keeps its key id and its old signature.
    const recomputed = recomputeFrom(rows, 5, { n: 99 });
    const problems = verify(recomputed).problems;
    expect(problems[0]).toEqual({ seq: 5, code: 'BAD_SIGNATURE', message: `entry 5's signature does not verify under desk sender's key ${B.id}: the entry was changed (and its hash recomputed) after it was signed` });
    expect(problems.map((p) => [p.seq, p.code])).toEqual([[5, 'BAD_SIGNATURE'], [6, 'BAD_SIGNATURE']]);
  });

  it("does not let an entry pass as another desk's: its key id is part of its hash", () => {
    const rows = mixedLog();
    // Desk B (or whoever holds its key) re-signs A's entry 4 as its own, hash untouched.
    const claimed = rows.map((r) => (r.seq === 4 ? { ...r, key_id: B.id, signature: sign(null, Buffer.from(auditSigningText(r.hash)), B.privateKey).toString('base64') } : r));
    expect(verify(claimed).problems).toEqual([{ seq: 4, code: 'HASH_MISMATCH', message: 'entry 4 was changed after it was written: its hash does not match its contents' }]);
  });

  it('refuses an unsigned entry after the first signed one, and one that names a key but carries no signature (UNSEALED)', () => {
    const rows = mixedLog();
    const stripped = rewriteFrom(rows, 6, null, { n: 6 });
    expect(verify(stripped).problems).toEqual([{ seq: 6, code: 'UNSEALED', message: "entry 6 carries no signature although every entry from the first signed one on is signed: it was written or rewritten without a desk's signing key" }]);
    const bare = rows.map((r) => (r.seq === 5 ? { ...r, signature: null } : r));
    expect(verify(bare).problems).toEqual([{ seq: 5, code: 'UNSEALED', message: `entry 5 names desk sender's key ${B.id} but carries no signature: it was written or rewritten without the key` }]);
  });

  it('catches every signature stripped and the chain recomputed unsigned, through the anchor\'s first signed entry', () => {
    const rows = mixedLog();
    const unsigned = rewriteFrom(rows, 4, null, { n: 4 });
    expect(verify(unsigned).problems).toEqual([]); // nothing in the rows alone says they were ever signed
    const problems = verify(unsigned, { anchor: { ...anchorAt(rows, 6), sealedFrom: 4 }, pins: new Map([[A.id, 0], [B.id, 0]]) }).problems;
    expect(problems.map((p) => [p.seq, p.code])).toEqual([[4, 'UNSEALED'], [5, 'UNSEALED'], [6, 'UNSEALED'], [6, 'ANCHOR_MISMATCH']]);
    expect(problems[0]!.message).toBe("entry 4 carries no signature although every entry from entry 4 on is signed: it was written or rewritten without a desk's signing key");
  });

  it('names a key id no desk registered (UNKNOWN_SIGNER) and a registered key replaced under its id (SIGNER_REPLACED)', () => {
    const rows = mixedLog();
    expect(verify(rows, { signers: registered([A, 'prep']) }).problems).toEqual([
      { seq: 5, code: 'UNKNOWN_SIGNER', message: `entry 5 names signing key ${B.id}, which no desk of the team registered: the entry was forged, or that key's row was removed from audit_signers` },
    ]);
    const replaced = new Map([...TEAM, [B.id, { deskName: 'sender', publicKey: null }]]);
    expect(verify(rows, { signers: replaced }).problems[0]).toMatchObject({ seq: 5, code: 'SIGNER_REPLACED', message: expect.stringContaining(`entry 5 is signed with desk sender's key ${B.id}, but the public key registered under that id is not that key`) });
    // A signature made with another key than the one registered under the id does not verify.
    const wrongKey = new Map([...TEAM, [B.id, { deskName: 'sender', publicKey: FORGER.publicKey }]]);
    expect(verify(rows, { signers: wrongKey }).problems[0]).toMatchObject({ seq: 5, code: 'BAD_SIGNATURE' });
  });

  it("catches history rewritten and re-signed with a key registered after this desk's anchor (SIGNER_AFTER_ANCHOR)", () => {
    const rows = mixedLog();
    const anchor = anchorAt(rows, 6, 4);
    const pins = new Map([[A.id, 0], [B.id, 0]]);
    // Someone with database access registers a key of their own and rewrites entries 5 and 6 with it.
    const forged = rewriteFrom(rows, 5, FORGER, { n: 'paid to me' });
    append(forged, FORGER);
    const signers = new Map([...TEAM, [FORGER.id, { deskName: 'sender', publicKey: FORGER.publicKey }]]);
    expect(verify(forged, { signers }).problems).toEqual([]); // a desk without an anchor cannot tell
    const problems = verify(forged, { signers, anchor, pins }).problems;
    expect(problems.map((p) => [p.seq, p.code])).toEqual([[5, 'SIGNER_AFTER_ANCHOR'], [6, 'SIGNER_AFTER_ANCHOR'], [6, 'ANCHOR_MISMATCH']]);
    expect(problems[0]!.message).toBe(`entry 5 is signed with desk sender's key ${FORGER.id}, which was registered after the test keychain anchored entry 6: entries up to 6 were rewritten and signed with a key added later`);
    // A key this desk first saw when it had anchored entry 2 cannot have signed entry 2, though the anchor is now at 3.
    const early = rows.slice(0, 1);
    append(early, B);
    append(early, B);
    expect(verify(early, { anchor: anchorAt(early, 3, 2), pins: new Map([[B.id, 2]]) }).problems).toMatchObject([{ seq: 2, code: 'SIGNER_AFTER_ANCHOR', message: expect.stringContaining('anchored entry 2: entries up to 2 were rewritten') }]);
    expect(verify(early, { anchor: anchorAt(early, 3, 2), pins: new Map([[B.id, 1]]) }).problems).toEqual([]);
  });

  it('still catches a cut below the anchor (TRUNCATED) and a missing anchor (ANCHOR_MISSING), in the team\'s words', () => {
    const rows = mixedLog();
    expect(verify(rows.slice(0, 4), { anchor: anchorAt(rows, 6, 4), pins: new Map([[A.id, 0], [B.id, 0]]) }).problems).toEqual([
      { seq: 5, code: 'TRUNCATED', message: "the log ends at entry 4 but the test keychain anchored entry 6: entries 5–6 were removed (or the team's audit log was restored from an older copy)" },
    ]);
    expect(verify(rows, { anchor: null }).problems).toEqual([
      { seq: null, code: 'ANCHOR_MISSING', message: "the test keychain holds no anchor for the newest audit entry of the team's audit log, so removal of the newest entries cannot be ruled out" },
    ]);
  });

  it('signs a labelled hash, so a signature of the bare hash does not pass', () => {
    const rows = mixedLog();
    const row = rows[4]!;
    const bareSig = sign(null, Buffer.from(row.hash), B.privateKey).toString('base64');
    expect(verify(rows.map((r) => (r.seq === 5 ? { ...r, signature: bareSig } : r))).problems[0]).toMatchObject({ seq: 5, code: 'BAD_SIGNATURE' });
    // The key id names the key: a different key has a different id.
    expect(auditSignerId(createPublicKey(FORGER.privateKey).export({ format: 'der', type: 'spki' }))).toBe(FORGER.id);
    expect(FORGER.id).not.toBe(B.id);
  });
});

function fieldsOf(r: AuditRow) {
  return { seq: r.seq, at: r.at, actor: r.actor, action: r.action, subject: r.subject, detailsJson: r.details_json };
}

/** Edits entry `seq` and recomputes the chain from there, without any desk's key (signatures kept as they were). */
function recomputeFrom(rows: AuditRow[], seq: number, details: unknown): AuditRow[] {
  const out: AuditRow[] = [];
  for (const r of rows) {
    if (r.seq < seq) {
      out.push(r);
      continue;
    }
    const row = { ...r, prev_hash: out.at(-1)?.hash ?? GENESIS_HASH, details_json: r.seq === seq ? canonicalJson(details) : r.details_json };
    row.hash = row.key_id ? signedEntryHash(row.prev_hash, fieldsOf(row), row.key_id) : entryHash(row.prev_hash, fieldsOf(row), null);
    out.push(row);
  }
  return out;
}
