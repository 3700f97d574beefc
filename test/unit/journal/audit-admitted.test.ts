// A team's signed audit log with dual control on (issue 23, finding 10): a key is the team's only when the
// verified control chain registers it (main/store/postgres/audit-seal.ts admitSigners), entries of any other key read
// UNREGISTERED_SIGNER, and an entry whose actor names a registered desk must be signed by that desk's key.
import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  auditSignerId, auditSigningText, canonicalJson, GENESIS_HASH, signedEntryHash, verifyAuditRows, type AuditRow, type RegisteredSigner,
} from '../../../main/audit/chain';
import { admitSigners, deskKeyFingerprint } from '../../../main/store/postgres/audit-seal';
import { adminRegisteredDesks } from '../../../main/trust/control-state';
import type { RegisteredDesk } from '../../../main/trust/chain-state';
import type { ControlState } from '../../../main/trust/control-state';

interface Key {
  id: string;
  privateKey: KeyObject;
  publicKey: KeyObject;
  spki: string;
}

function newKey(): Key {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const der = publicKey.export({ format: 'der', type: 'spki' });
  return { id: auditSignerId(der), privateKey, publicKey, spki: der.toString('base64') };
}

const PREP = newKey();
const SENDER = newKey();
const FORGER = newKey();

function append(rows: AuditRow[], key: Key, actor = 'engine'): void {
  const prev = rows.at(-1);
  const seq = (prev?.seq ?? 0) + 1;
  const fields = { seq, at: 1_000 + seq, actor, action: 'test.step', subject: null, detailsJson: canonicalJson({ seq }) };
  const prevHash = prev?.hash ?? GENESIS_HASH;
  const hash = signedEntryHash(prevHash, fields, key.id);
  rows.push({
    seq, at: fields.at, actor, action: fields.action, subject: null, details_json: fields.detailsJson, prev_hash: prevHash, hash,
    key_id: key.id, signature: sign(null, Buffer.from(auditSigningText(hash)), key.privateKey).toString('base64'),
  });
}

/** audit_signers as the database lists it: each desk's own row (a forger can add one too). */
const listed = (...keys: [Key, string][]): Map<string, RegisteredSigner> => new Map(keys.map(([k, deskName]) => [k.id, { deskName, publicKey: k.publicKey }]));
const desk = (key: Key, deskName: string, publicKey = key.spki): RegisteredDesk => ({ keyId: key.id, publicKey, deskName, registeredAt: 1, registeredBy: 'ada', seq: 2 });

function verifyWith(rows: AuditRow[], signers: ReadonlyMap<string, RegisteredSigner>, desks: RegisteredDesk[] | null) {
  const admitted = desks ? admitSigners(signers, desks) : null;
  return verifyAuditRows(rows, { seq: 0, hash: GENESIS_HASH }, {
    keys: new Map(), signers: admitted?.signers ?? signers, logName: "the team's audit log",
    ...(admitted ? { registeredDeskNames: admitted.names } : {}),
  }, () => null).problems;
}

describe("a team's audit signers with dual control on", () => {
  it('admits a key only when the chain registers the same id with the same public key, under the name the admin gave it', () => {
    const signers = listed([PREP, 'prep'], [SENDER, 'sender'], [FORGER, 'sender']);
    const { signers: admitted, names } = admitSigners(signers, [desk(PREP, 'Prep desk'), desk(SENDER, 'sender', FORGER.spki)]);
    expect(admitted.get(PREP.id)).toMatchObject({ deskName: 'Prep desk', admitted: true });
    // A registration whose public key is not the key its id names registers nothing.
    expect(admitted.get(SENDER.id)).toMatchObject({ deskName: 'sender', admitted: false });
    expect(admitted.get(FORGER.id)).toMatchObject({ admitted: false });
    expect([...names]).toEqual(['Prep desk']);
    expect(deskKeyFingerprint(PREP.id)).toBe(PREP.id.match(/.{4}/g)!.join(':'));
  });

  it("names each unregistered key once, with its runs of entries; registered, the same log verifies", () => {
    const rows: AuditRow[] = [];
    append(rows, PREP);
    for (let i = 0; i < 2; i++) append(rows, FORGER);
    append(rows, PREP);
    for (const _ of [1, 2, 3, 4]) {
      append(rows, FORGER);
      append(rows, PREP);
    }
    const signers = listed([PREP, 'prep'], [FORGER, 'prep']);
    expect(verifyWith(rows, signers, null)).toEqual([]);
    expect(verifyWith(rows, signers, [desk(PREP, 'prep')])).toEqual([{
      seq: 2, code: 'UNREGISTERED_SIGNER',
      message: `entries 2–3, 5, 7 and 2 more runs (6 in all) are signed by desk prep's key ${FORGER.id} (a desk prep is registered, with another key), which no admin registered: they are not the team's until an admin who has compared its fingerprint with that desk registers it (team register-desk ${FORGER.id})`,
    }]);
    // Nobody registered at all (dual control on, no desk record yet): every key is named.
    expect(verifyWith(rows, signers, []).map((p) => [p.seq, p.code])).toEqual([[1, 'UNREGISTERED_SIGNER'], [2, 'UNREGISTERED_SIGNER']]);
    expect(verifyWith(rows, signers, [desk(PREP, 'prep'), desk(FORGER, 'laptop')])).toEqual([]);
  });

  it('binds an actor naming a registered desk to that desk\'s key; other actors are not bound', () => {
    const rows: AuditRow[] = [];
    append(rows, PREP, 'ada@prep');
    append(rows, SENDER, 'bob@sender');
    append(rows, PREP, 'person:ada');
    append(rows, PREP, 'carol@unregistered-host');
    append(rows, PREP, 'a@b@prep');
    append(rows, PREP, 'bob@sender');
    const signers = listed([PREP, 'prep'], [SENDER, 'sender']);
    expect(verifyWith(rows, signers, null)).toEqual([]);
    expect(verifyWith(rows, signers, [desk(PREP, 'prep'), desk(SENDER, 'sender')])).toEqual([{
      seq: 6, code: 'ACTOR_NOT_SIGNER',
      message: `entry 6 says bob@sender acted, but it is signed by desk prep's key ${PREP.id}, not by a key of desk sender: one desk wrote in another desk's name`,
    }]);
  });

  it('takes desks only from a chain this desk may believe: none from a chain with another root, none with dual control off', () => {
    const chain = { desks: [desk(PREP, 'prep')] } as unknown as NonNullable<ControlState['chain']>;
    const state = (over: Partial<ControlState>): ControlState => ({ enforced: true, problem: null, chain, ...over }) as ControlState;
    expect(adminRegisteredDesks(state({}))).toEqual([desk(PREP, 'prep')]);
    expect(adminRegisteredDesks(state({ enforced: false, chain: null }))).toBeNull();
    expect(adminRegisteredDesks(state({ problem: { code: 'ROOT_MISMATCH', message: 'replaced' } }))).toEqual([]);
    // A record that fails later: what the verified records registered still stands.
    expect(adminRegisteredDesks(state({ problem: { code: 'BAD_SIGNATURE', message: 'record 5' } }))).toEqual([desk(PREP, 'prep')]);
    expect(adminRegisteredDesks(state({ chain: null, problem: { code: 'CHAIN_MISSING', message: 'gone' } }))).toEqual([]);
  });
});
