// The control chain: who may approve, with which roles, under which policy, and which desks of a team may
// sign audit entries, as an append-only list of records each signed by the people entitled to make it. It is
// the only source of people, roles, revocations and policy versions: a bare row in a journal file or a team
// database is never asked. Each record names the one before it by hash and signs its own place (seq, prev),
// so a record removed, reordered or edited breaks every signature after it; and each desk pins the chain's
// root and newest head in its own keychain (control-pin.ts), so a chain replaced or cut back is seen too.
//
// A record's hash is SHA-256 over the canonical JSON of {format, seq, prev, at, body} (canonical.ts). Each signer
// signs the hash (as its hex text); a record one admin drafted and signed waits as a proposal until a second
// admin adds their signature, when the policy asks for two (chain-state.ts counts distinct admins' signatures:
// one taken away leaves too few, one added by a non-admin fails the record).
// Rule: nothing here reads a clock or a store; chain-state.ts replays and judges.
import { createHash } from 'node:crypto';
import { canonicalJson } from '../approvals/canonical';
import type { PolicyRules } from '../approvals/policy';
import type { UnlockedSession } from '../people/key-vault';
import { personSignatureValid } from '../people/person-key';
import type { Role } from '../people/roles';

export const CHAIN_FORMAT = 'payout-desk/control-chain/v1';
/** The `prev` of the first record. */
export const CHAIN_START = '0'.repeat(64);

export interface ChainPerson {
  id: string;
  name: string;
  /** Ed25519 SPKI DER, base64: the person's own signing key, made at their own desk. */
  publicKey: string;
}

export type ChainBody =
  /**
   * The first record, signed by its root: the first admin. `scope` is what approvals and policies of this
   * chain are bound to (the profile id at the desk that made it). `people` is who is there from the start
   * (the root first, with every role); more than the root only when a desk's people from before the chain
   * are sealed into it by an admin. `policy`: the version in force from the start, if any.
   */
  | { kind: 'genesis'; scope: string; people: (ChainPerson & { roles: Role[] })[]; policy: { version: number; rules: PolicyRules } | null }
  /** A person sets themselves up at their own desk: signed by their own new key; they can only look until an admin grants roles. */
  | { kind: 'enrolled'; person: ChainPerson }
  /** An admin sets a person's roles (all of them: roles not named end). */
  | { kind: 'roles'; personId: string; roles: Role[] }
  /** An admin revokes a person: every role ends, their signatures count for nothing on what is not sent yet. */
  | { kind: 'revoked'; personId: string; reason: string }
  /** An admin sets the next approval policy version. */
  | { kind: 'policy'; version: number; rules: PolicyRules }
  /** An admin registers a desk's key for the team's audit log (team-audit.ts): entries signed by other keys are not the team's. */
  | { kind: 'desk'; keyId: string; publicKey: string; deskName: string };

export type ChainKind = ChainBody['kind'];

export interface ChainSignature {
  signerId: string;
  /** Ed25519 over the record's hash (its 64 hex characters), base64. */
  signature: string;
}

export interface ChainRecord {
  seq: number;
  prev: string;
  /** When it was made (epoch ms, the first signer's clock); never earlier than the record before it. */
  at: number;
  body: ChainBody;
  signatures: ChainSignature[];
  hash: string;
}

export type UnsignedRecord = Omit<ChainRecord, 'signatures' | 'hash'>;

export function recordHash(r: UnsignedRecord): string {
  const text = canonicalJson({ format: CHAIN_FORMAT, seq: r.seq, prev: r.prev, at: r.at, body: r.body });
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** The next record after `head`, not signed yet. */
export function draftRecord(input: { head: { seq: number; hash: string; at?: number } | null; at: number; body: ChainBody }): ChainRecord {
  // Never dated before the record it follows (another desk's clock may be ahead).
  const unsigned: UnsignedRecord = { seq: (input.head?.seq ?? 0) + 1, prev: input.head?.hash ?? CHAIN_START, at: Math.max(input.at, input.head?.at ?? 0), body: input.body };
  return { ...unsigned, signatures: [], hash: recordHash(unsigned) };
}

/** Adds the session's signature (replacing an earlier one of theirs). */
export function signRecord(record: ChainRecord, session: UnlockedSession): ChainRecord {
  const others = record.signatures.filter((s) => s.signerId !== session.personId);
  return { ...record, signatures: [...others, { signerId: session.personId, signature: session.sign(Buffer.from(record.hash, 'utf8')) }] };
}

export function signatureValid(hash: string, signature: string, publicKeySpki: string): boolean {
  return personSignatureValid(Buffer.from(hash, 'utf8'), signature, publicKeySpki);
}

/** The short fingerprint people compare out of band: of the root person's public key and the chain's first record. */
export function rootFingerprint(genesis: Pick<ChainRecord, 'hash'>): string {
  return genesis.hash.slice(0, 32).match(/.{4}/g)!.join(':');
}

/** What a record does, in words (lists, audit details, errors). */
export function recordText(body: ChainBody, nameOf: (personId: string) => string = (id) => id): string {
  switch (body.kind) {
    case 'genesis':
      return `dual control set up with ${body.people.map((p) => p.name).join(', ')}${body.policy ? ` and policy version ${body.policy.version}` : ''}`;
    case 'enrolled':
      return `${body.person.name} enrolled`;
    case 'roles':
      return `${nameOf(body.personId)}'s roles set to ${body.roles.join(', ') || 'none'}`;
    case 'revoked':
      return `${nameOf(body.personId)} revoked: ${body.reason}`;
    case 'policy':
      return `policy version ${body.version}`;
    case 'desk':
      return `desk ${body.deskName} registered (audit key ${body.keyId})`;
  }
}
