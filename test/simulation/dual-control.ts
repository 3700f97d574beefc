// Dual control in the simulation: four people with roles, a policy with amount bands (so a payout or a
// batch needs 0, 1 or 2 approvals), and the oracle of invariants 7 and 8.
//
// Crypto is kept cheap and out of the loop: four Ed25519 key pairs are generated once per process, and the
// people are signed into the control chain's first record with those public keys (as `people seal` writes it).
// A person "unlocks" by wrapping their in-memory private key in an UnlockedSession directly (no keychain seal,
// no scrypt): the path production takes only inside PersonKeyVault.unlock after the passphrase opened the key.
// Signing, verification, the chain, the gate and the desk services are the production ones.
//
// The oracle believes only what it saw happen: the control records as they were when the person's own steps
// made them (never what is in the store after an adversary's step), and each subject's manifest as it was
// journalled before any adversary could touch it. Approvals are read from the store and checked here.
import type { KeyObject } from 'node:crypto';
import { approvalSignatureValid, type ApprovalRecord } from '../../main/approvals/approval';
import { manifestFromJournal } from '../../main/approvals/gate';
import { manifestDigest, parseDecimal, type Manifest, type Subject } from '../../main/approvals/manifest';
import { requiredApprovals, type ApprovalPolicy, type PolicyRules } from '../../main/approvals/policy';
import type { DeskRuntime } from '../../main/desk/runtime';
import type { DeskJournal } from '../../main/journal';
import { UnlockedSession } from '../../main/people/key-vault';
import { generatePersonKey } from '../../main/people/person-key';
import { heldRoleAt, type Person, type Role } from '../../main/people/roles';
import { draftRecord, signRecord, type ChainRecord } from '../../main/trust/chain-record';
import { replayChain } from '../../main/trust/chain-state';
import { SIM_PROFILE } from './adapters';

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
/** Generated once per process: every run and every seed uses the same key pairs (and the adversary its own). */
function keyOf(personId: string) {
  keys ??= new Map([...SIM_PEOPLE.map((p) => p.id), 'mallory'].map((id) => [id, generatePersonKey()]));
  return keys.get(personId)!;
}

/** A person who unlocked (see the header: no scrypt in the loop). A fresh object: locking one locks only it. */
export function sessionOf(personId: string, now: number): UnlockedSession {
  const key = keyOf(personId);
  return new UnlockedSession(personId, key.publicKey, key.privateKey, now);
}

/** Someone with the database or the journal file but no key of the desk's people: what they sign verifies under no person's key. */
export const adversarySession = (now: number): UnlockedSession => sessionOf('mallory', now);
export const adversaryPublicKey = (): string => keyOf('mallory').publicKey;

/** Signs the people and the first policy version into the profile's control chain (once, before the desk opens). */
export async function setUpDualControl(runtime: DeskRuntime, now: number): Promise<ChainRecord[]> {
  const people = SIM_PEOPLE.map((p) => ({ id: p.id, name: p.name, publicKey: keyOf(p.id).publicKey, roles: p.roles }));
  const genesis = signRecord(draftRecord({ head: null, at: now, body: { kind: 'genesis', scope: SIM_PROFILE, people, policy: { version: 1, rules: SIM_POLICIES[0]! } } }), sessionOf(PREPARER, now));
  await (await runtime.dualControlFor(SIM_PROFILE)).appendChain(genesis);
  await (await runtime.controlReaderFor(SIM_PROFILE)).madeHere(genesis);
  return [genesis];
}

/** The people and policy versions as the records the person's own steps made say them. */
export interface TrustedControl {
  people: ReadonlyMap<string, Person>;
  policies: readonly ApprovalPolicy[];
  policyAt(at: number): ApprovalPolicy | undefined;
}

/** The oracle's chain grows by appends: its trusted reading is kept until the chain has another head. */
const trustedReadings = new WeakMap<readonly ChainRecord[], { length: number; head: string | undefined; trusted: TrustedControl }>();

export function trustedControl(records: readonly ChainRecord[]): TrustedControl {
  const head = records.at(-1)?.hash;
  const kept = trustedReadings.get(records);
  if (kept && kept.length === records.length && kept.head === head) return kept.trusted;
  const trusted = readTrustedControl(records);
  trustedReadings.set(records, { length: records.length, head, trusted });
  return trusted;
}

function readTrustedControl(records: readonly ChainRecord[]): TrustedControl {
  const { replay, problem } = replayChain(records);
  if (problem) throw new Error(`the oracle's own control records do not replay: ${problem.message}`);
  const state = replay.state()!;
  return {
    people: new Map(state.people.map((p) => [p.id, p])),
    policies: state.policies,
    policyAt: (at) => [...state.policies].reverse().find((p) => p.setAt <= at),
  };
}

/** The subject's manifest as it was journalled, before any adversary step (policy version 0). */
export async function journalledManifest(port: DeskJournal, subject: Subject): Promise<Manifest | undefined> {
  return manifestFromJournal(port, SIM_PROFILE, subject, 0);
}

/** Approvals of the subject the oracle counts under policy `policy`: valid signatures of approvers of the trusted records. */
function countedUnder(approvals: readonly ApprovalRecord[], manifest: Manifest, policy: ApprovalPolicy, trusted: TrustedControl, sentAt: number): { approvers: Set<string>; rejectedBy: string | null } {
  const digest = manifestDigest({ ...manifest, policyVersion: policy.version });
  const approvers = new Set<string>();
  let rejectedBy: string | null = null;
  for (const a of approvals) {
    const signer = trusted.people.get(a.signerId);
    const valid =
      signer !== undefined && approvalSignatureValid(a, signer.publicKey) && a.manifestDigest === digest && a.policyVersion === policy.version && a.signedAt <= sentAt &&
      heldRoleAt(signer, 'approver', a.signedAt) && !(signer.revokedAt !== null && signer.revokedAt <= sentAt) && a.signerId !== manifest.preparedBy;
    if (!valid) continue;
    if (a.decision === 'reject') rejectedBy ??= signer.name;
    else approvers.add(a.signerId);
  }
  return { approvers, rejectedBy };
}

/**
 * Invariant 7 for the first create of a subject that reached the gateway at `sentAt`: the approvals the policy
 * in force then required (or, for a subject an adversary marked "unknown outcome", the policy its approvals were
 * given under: a re-send rests on it), each signed by a person who held the approver role when signing, was not
 * revoked by the send, did not prepare it, over the manifest as it was journalled; and no such person rejected
 * it. Null when it holds, else why not.
 */
export function approvalBreach(subject: Subject, sentAt: number, trusted: TrustedControl, manifest: Manifest | undefined, resend: boolean, given: readonly ApprovalRecord[]): string | null {
  if (!manifest) return `${subject.kind} ${subject.id} left but the oracle never saw it journalled`;
  const now = trusted.policyAt(sentAt);
  if (!now) return `${subject.kind} ${subject.id} left with people on the desk but no policy`;
  const approvals = given.filter((a) => a.subject.kind === subject.kind && a.subject.id === subject.id);
  const versions = resend ? [now, ...trusted.policies.filter((p) => p.version !== now.version && approvals.some((a) => a.policyVersion === p.version))] : [now];
  const reasons: string[] = [];
  for (const policy of versions) {
    const { approvers, rejectedBy } = countedUnder(approvals, manifest, policy, trusted, sentAt);
    if (rejectedBy) return `${subject.kind} ${subject.id} left at ${sentAt} although ${rejectedBy} rejected it`;
    const required = requiredApprovals(policy, manifest).required;
    if (approvers.size >= required) return null;
    reasons.push(`${approvers.size} valid approval(s) of the ${required} policy version ${policy.version} required`);
  }
  return `${subject.kind} ${subject.id} left at ${sentAt} with ${reasons.join('; nor ')}`;
}

/**
 * Invariant 8 for every create that reached the gateway: its body is, field for field, the row of that id in
 * the subject's manifest as journalled (so an edited account, e-mail or callback address never leaves).
 */
export function bodyBreach(id: string, body: string | undefined, manifest: Manifest | undefined): string | null {
  if (!manifest) return `${id} left but the oracle never saw its payout or batch journalled`;
  const row = manifest.rows.find((r) => r.id === id);
  if (!row) return `${id} left but is no row of ${manifest.subject.kind} ${manifest.subject.id} as journalled`;
  let sent: { paymentRequested?: { money?: { currencyCode?: string } }; paymentMethod?: { paymentMethodCode?: string; paymentOperatorCode?: string; account?: { accountName?: string; accountNumber?: string }; emailAddress?: string }; callbackUrl?: string };
  try {
    sent = JSON.parse(body ?? '') as typeof sent;
  } catch {
    return `${id} left with a body that is not JSON`;
  }
  const amount = /"amount":(\d+(?:\.\d+)?)/.exec(body ?? '')?.[1];
  const decimals = manifest.decimals[row.currency] ?? 2;
  const [whole, fraction = ''] = (amount ?? '').split('.');
  const minor = amount === undefined ? NaN : Number(`${whole}${fraction.padEnd(decimals, '0')}`);
  const differs: string[] = [];
  if (minor !== parseDecimal(row.amount, decimals)) differs.push(`amount ${amount} (approved ${row.amount})`);
  if (sent.paymentRequested?.money?.currencyCode !== row.currency) differs.push('currency');
  if (sent.paymentMethod?.account?.accountNumber !== row.account) differs.push(`account ${sent.paymentMethod?.account?.accountNumber ?? '?'} (approved ${row.account})`);
  if (sent.paymentMethod?.account?.accountName !== row.payeeName) differs.push('payee name');
  if (sent.paymentMethod?.paymentOperatorCode !== row.operator) differs.push('operator');
  if (sent.paymentMethod?.paymentMethodCode !== row.method) differs.push('method');
  if (sent.paymentMethod?.emailAddress !== row.email) differs.push(`e-mail ${sent.paymentMethod?.emailAddress ?? '?'} (approved ${row.email})`);
  if ((sent.callbackUrl ?? '') !== row.callbackUrl) differs.push('callback address');
  return differs.length > 0 ? `${id} left with another body than journalled and approved: ${differs.join(', ')}` : null;
}
