// The preparer's signature: at submit, the person who prepared a payout or a batch signs its manifest as it
// was journalled (every row, the callback address each row is sent with, who prepared it and when), so the
// journal's prepared_by and callback columns are covered by a signature like the rows are: a preparer cannot be
// swapped for another (to let someone approve their own work) and no row can gain a callback address, unseen.
// The digest signed is the manifest's with policy version 0 and preparation time 0: the preparer signs what is
// sent, not a policy, and signs it before it is stored (so no desk of a team finds it unsigned), when the time the
// journal will write is not known yet. That time guards approvals (none signed before it counts), not this.
import type { UnlockedSession } from '../people/key-vault';
import { personSignatureValid } from '../people/person-key';
import { canonicalBytes } from './canonical';
import { manifestDigest, type Manifest, type Subject } from './manifest';

export interface PreparationRecord {
  id: string;
  profileId: string;
  subject: Subject;
  /** manifestDigest of the manifest with policyVersion 0 (preparationDigest). */
  digest: string;
  signerId: string;
  signedAt: number;
  /** Ed25519 over preparationSigningBytes, base64. */
  signature: string;
  /** When the store took it (its own clock); set on read. */
  recordedAt?: number;
}

/** What the preparer signs of a manifest: its fields but the policy version and the preparation time. */
export const PREPARATION_VARIANT = { policyVersion: 0, preparedAt: 0 } as const;
export const preparationDigest = (manifest: Manifest): string => manifestDigest({ ...manifest, ...PREPARATION_VARIANT });

export function preparationSigningBytes(p: Omit<PreparationRecord, 'signature' | 'recordedAt'>): Buffer {
  return canonicalBytes({
    purpose: 'payout-desk/preparation',
    version: 1,
    preparation: { id: p.id, profileId: p.profileId, subject: { kind: p.subject.kind, id: p.subject.id }, digest: p.digest, signerId: p.signerId, signedAt: p.signedAt },
  });
}

export function signPreparation(session: UnlockedSession, input: { id: string; manifest: Manifest; signedAt: number }): PreparationRecord {
  const unsigned = {
    id: input.id, profileId: input.manifest.profileId, subject: { ...input.manifest.subject }, digest: preparationDigest(input.manifest), signerId: session.personId, signedAt: input.signedAt,
  };
  return { ...unsigned, signature: session.sign(preparationSigningBytes(unsigned)) };
}

export function preparationSignatureValid(p: PreparationRecord, publicKeySpki: string): boolean {
  return personSignatureValid(preparationSigningBytes(p), p.signature, publicKeySpki);
}
