// People with unlocked keys, manifests and signed approvals for the approvals unit tests.
import { UnlockedSession } from '../../../main/people/key-vault';
import { generatePersonKey } from '../../../main/people/person-key';
import type { Person, Role } from '../../../main/people/roles';
import { signApproval, type ApprovalRecord, type Decision } from '../../../main/approvals/approval';
import { buildManifest, type Manifest, type ManifestSourceRow, type Subject } from '../../../main/approvals/manifest';

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
    paymentOperatorCode: 'EU_SEPA', paymentMethodCode: 'BANK_TRANSFER', emailAddress: 'grace@example.com', ...overrides,
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
