// Dual control in the simulation: four people with roles, a policy with amount bands (so a payout or a
// batch needs 0, 1 or 2 approvals), and the oracle of invariant 7.
//
// Crypto is kept cheap and out of the loop: four Ed25519 key pairs are generated once per process, and
// people are written to the journal through the repository with those public keys. A person "unlocks" by
// wrapping their in-memory private key in an UnlockedSession directly (no keychain seal, no scrypt): the
// path production takes only inside PersonKeyVault.unlock after the passphrase opened the key. Signing,
// verification, the gate and the desk services are the production ones.
import type { KeyObject } from 'node:crypto';
import { approvalSignatureValid } from '../../main/approvals/approval';
import { manifestFromJournal } from '../../main/approvals/gate';
import { manifestDigest, type Subject } from '../../main/approvals/manifest';
import { requiredApprovals, signPolicy, type PolicyRules } from '../../main/approvals/policy';
import type { DeskRuntime } from '../../main/desk/runtime';
import { UnlockedSession } from '../../main/people/key-vault';
import { generatePersonKey } from '../../main/people/person-key';
import { heldRoleAt, type Role } from '../../main/people/roles';
import { SIM_PROFILE, type SimJournal } from './adapters';

export interface SimPersonSpec {
  id: string;
  name: string;
  roles: Role[];
}

/** Alice prepares, sends and administers, and is an approver too (so her own approvals must be refused). */
export const SIM_PEOPLE: readonly SimPersonSpec[] = [
  { id: 'alice', name: 'Alice', roles: ['preparer', 'approver', 'sender', 'admin'] },
  { id: 'bob', name: 'Bob', roles: ['approver'] },
  { id: 'carol', name: 'Carol', roles: ['approver'] },
  { id: 'dave', name: 'Dave', roles: ['approver', 'viewer'] },
];
export const PREPARER = 'alice';

/** Amounts in the simulation run from 1.00 to 1,000.99 EUR a row; a batch of six reaches about 6,000. */
export const SIM_POLICIES: readonly PolicyRules[] = [
  { bands: { '*': [{ atLeast: '0', approvals: 0 }, { atLeast: '400', approvals: 1 }, { atLeast: '1500', approvals: 2 }] }, newOrChangedPayee: 0 },
  { bands: { '*': [{ atLeast: '200', approvals: 1 }, { atLeast: '3000', approvals: 2 }] }, newOrChangedPayee: 0 },
];

let keys: Map<string, { publicKey: string; privateKey: KeyObject }> | null = null;
/** Generated once per process: every run and every seed uses the same four key pairs. */
function keyOf(personId: string) {
  keys ??= new Map(SIM_PEOPLE.map((p) => [p.id, generatePersonKey()]));
  return keys.get(personId)!;
}

/** A person who unlocked (see the header: no scrypt in the loop). A fresh object: locking one locks only it. */
export function sessionOf(personId: string, now: number): UnlockedSession {
  const key = keyOf(personId);
  return new UnlockedSession(personId, key.publicKey, key.privateKey, now);
}

/** Adds the people and the first policy version to the desk's journal (once, before the first step). */
export async function setUpDualControl(runtime: DeskRuntime, now: number): Promise<void> {
  const repo = await runtime.dualControlFor(SIM_PROFILE);
  for (const p of SIM_PEOPLE) {
    await repo.addPerson({ id: p.id, name: p.name, publicKey: keyOf(p.id).publicKey, createdAt: now, createdBy: null, revokedAt: null, revokedBy: null, revokeReason: null }, p.roles, now, null);
  }
  await repo.addPolicy(signPolicy(sessionOf(PREPARER, now), { profileId: SIM_PROFILE, version: 1, rules: SIM_POLICIES[0]!, setAt: now }));
}

/**
 * Invariant 7 for the first create of a subject that reached the gateway at `sentAt`: the approvals the
 * policy in force then required, each signed by a person who held the approver role when signing, was not
 * revoked by the send, did not prepare it, over the manifest as the journal holds it and that policy version;
 * and no such person rejected it. Null when it holds, else why not. An oracle of its own: it reads the policy
 * straight from the tables, people and approvals through the adapter's repository, and uses only the
 * production signature check, manifest builder and band arithmetic.
 */
export async function approvalBreach(journal: SimJournal, subject: Subject, sentAt: number): Promise<string | null> {
  const repo = journal.tables.dualControl;
  const people = new Map((await repo.listPeople()).map((p) => [p.id, p]));
  if (people.size === 0) return null;
  const policy = await journal.tables.policyAt(sentAt);
  if (!policy) return `${subject.kind} ${subject.id} left with people on the desk but no policy`;
  const manifest = await manifestFromJournal(journal.port, SIM_PROFILE, subject, policy.version);
  if (!manifest) return `${subject.kind} ${subject.id} left but has no manifest in the journal`;
  const digest = manifestDigest(manifest);
  const required = requiredApprovals(policy, manifest).required;
  const approvers = new Set<string>();
  for (const a of await repo.approvalsFor(subject)) {
    const signer = people.get(a.signerId);
    const valid =
      signer !== undefined && approvalSignatureValid(a, signer.publicKey) && a.manifestDigest === digest && a.policyVersion === policy.version && a.signedAt <= sentAt &&
      heldRoleAt(signer, 'approver', a.signedAt) && !(signer.revokedAt !== null && signer.revokedAt <= sentAt) && a.signerId !== manifest.preparedBy;
    if (!valid) continue;
    if (a.decision === 'reject') return `${subject.kind} ${subject.id} left at ${sentAt} although ${signer!.name} rejected it`;
    approvers.add(a.signerId);
  }
  if (approvers.size < required) {
    return `${subject.kind} ${subject.id} left at ${sentAt} with ${approvers.size} valid approval(s) of the ${required} policy version ${policy.version} required`;
  }
  return null;
}
