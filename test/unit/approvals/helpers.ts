// People with unlocked keys, manifests and signed approvals for the approvals unit tests.
import { UnlockedSession } from '../../../main/people/key-vault';
import { generatePersonKey } from '../../../main/people/person-key';
import { currentRoles, type Person, type Role } from '../../../main/people/roles';
import { signApproval, type ApprovalRecord, type Decision } from '../../../main/approvals/approval';
import { manifestDecimals } from '../../../main/approvals/gate';
import { buildManifest, type Manifest, type ManifestSourceRow, type Subject } from '../../../main/approvals/manifest';
import type { PolicyRules } from '../../../main/approvals/policy';
import { signPreparation } from '../../../main/approvals/preparation';
import type { DualControlRepository } from '../../../main/trust/repository';
import { MemoryKeyStore } from '../../../main/keys/key-store';
import { draftRecord, signRecord, type ChainBody, type ChainRecord } from '../../../main/trust/chain-record';
import { ControlReader } from '../../../main/trust/control-state';

export const T0 = 1_700_000_000_000;

export interface Member {
  person: Person;
  session: UnlockedSession;
}

export function member(id: string, roles: Role[], at = T0 - 1000): Member {
  const pair = generatePersonKey();
  const person: Person = {
    id, name: id[0]!.toUpperCase() + id.slice(1), publicKey: pair.publicKey, createdAt: at, createdBy: null, revokedAt: null, revokedBy: null, revokeReason: null,
    grants: roles.map((role) => ({ personId: id, role, grantedAt: at, grantedBy: null, removedAt: null, removedBy: null })),
  };
  return { person, session: new UnlockedSession(id, pair.publicKey, pair.privateKey, at) };
}

export function row(id: string, amountMinor: number, overrides: Partial<ManifestSourceRow> = {}): ManifestSourceRow {
  return {
    id, amountMinor, currencyCode: 'EUR', accountName: 'Grace Hopper', accountNumber: 'NL91ABNA0417164300',
    paymentOperatorCode: 'EU_SEPA', paymentMethodCode: 'BANK_TRANSFER', emailAddress: 'grace@example.com', callbackUrl: null, ...overrides,
  };
}

export function manifest(rows: ManifestSourceRow[], overrides: { subject?: Subject; preparedBy?: string | null; policyVersion?: number; fileSha256?: string | null; profileId?: string } = {}): Manifest {
  return buildManifest({
    profileId: overrides.profileId ?? 'prof-1',
    subject: overrides.subject ?? { kind: 'batch', id: 'batch-1' },
    preparedBy: overrides.preparedBy === undefined ? 'paula' : overrides.preparedBy,
    preparedAt: T0,
    fileSha256: overrides.fileSha256 === undefined ? 'a'.repeat(64) : overrides.fileSha256,
    rows,
    decimalsOf: (c) => (c === 'JPY' ? 0 : 2),
    policyVersion: overrides.policyVersion ?? 0,
  });
}

let seq = 0;
export function approve(m: Member, on: Manifest, decision: Decision = 'approve', reason: string | null = null, signedAt = T0 + 1000): ApprovalRecord {
  return signApproval(m.session, { id: `appr-${++seq}`, manifest: on, decision, reason, signedAt });
}

/**
 * The control chain that makes these people (the first an admin: the root) with their roles and, if given, a
 * policy version, as one genesis signed by the root: what `people seal` writes. Scope: the profile id.
 */
export function chainOf(scope: string, members: readonly Member[], options: { at?: number; policy?: { version: number; rules: PolicyRules } } = {}): ChainRecord[] {
  const root = members.find((m) => currentRoles(m.person).includes('admin'));
  if (!root) throw new Error('chainOf: someone must be an admin');
  const people = [root, ...members.filter((m) => m !== root)].map((m) => ({ id: m.person.id, name: m.person.name, publicKey: m.person.publicKey, roles: currentRoles(m.person) }));
  const genesis = draftRecord({ head: null, at: options.at ?? T0 - 1000, body: { kind: 'genesis', scope, people, policy: options.policy ?? null } });
  return [signRecord(genesis, root.session)];
}

/** Signs and appends the next control record on `repo`'s chain (one signature per given member). */
export async function appendRecord(repo: DualControlRepository, body: ChainBody, by: readonly Member[], at = T0): Promise<ChainRecord> {
  const head = (await repo.chain()).at(-1);
  let record = draftRecord({ head: head ? { seq: head.seq, hash: head.hash, at: head.at } : null, at, body });
  for (const m of by) record = signRecord(record, m.session);
  await repo.appendChain(record);
  return record;
}

/** A control reader of `repo` for a desk whose keychain is `keyStore` (a fresh one: nothing pinned yet). */
export function readerOf(repo: DualControlRepository, options: { profileId?: string; environment?: 'TEST' | 'LIVE'; keyStore?: MemoryKeyStore } = {}): ControlReader {
  return new ControlReader({ repository: repo, keyStore: options.keyStore ?? new MemoryKeyStore(), profileId: options.profileId ?? 'prof-1', environment: options.environment ?? 'TEST', where: 'the test store' });
}

/** The engine's prepare hook as the runtime makes it, signing as whichever member is named preparer. */
export function preparingAs(repo: DualControlRepository, members: readonly Member[], scope: string, at: () => number = Date.now) {
  return async (subject: Subject, preparedBy: string, content: { rows: ManifestSourceRow[]; fileSha256: string | null; execution?: { at: number; zone: string; local: string } | null; possibleDuplicates?: string[] }): Promise<void> => {
    const m = members.find((x) => x.person.id === preparedBy);
    if (!m) throw new Error(`no member ${preparedBy}`);
    const manifest = buildManifest({ profileId: scope, subject, preparedBy, preparedAt: 0, fileSha256: content.fileSha256, rows: content.rows, decimalsOf: manifestDecimals, policyVersion: 0, execution: content.execution ?? null, possibleDuplicates: content.possibleDuplicates });
    await repo.addPreparation(signPreparation(m.session, { id: globalThis.crypto.randomUUID(), manifest, signedAt: at() }));
  };
}
