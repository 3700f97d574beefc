// An approval (or a rejection) is a person's Ed25519 signature over the manifest's digest, the subject,
// the policy version and their decision: plain data, every field but the signature itself is signed.
import type { UnlockedSession } from '../people/key-vault';
import { personSignatureValid } from '../people/person-key';
import { canonicalBytes } from './canonical';
import { manifestDigest, type Manifest, type Subject } from './manifest';
import { CodedError } from '../domain/coded-error';

export type Decision = 'approve' | 'reject';

export interface ApprovalRecord {
  id: string;
  profileId: string;
  subject: Subject;
  manifestDigest: string;
  policyVersion: number;
  decision: Decision;
  /** Required for a rejection; optional note for an approval. */
  reason: string | null;
  signerId: string;
  signedAt: number;
  /** Ed25519 over approvalSigningBytes, base64. */
  signature: string;
  /** When the store took it (its own clock, not the signer's); set on read. The signer's roles must hold then too. */
  recordedAt?: number;
}

export class ApprovalError extends CodedError<'REASON_REQUIRED' | 'NOT_ALLOWED' | 'NOT_FOUND' | 'ALREADY_DECIDED' | 'POLICY_INVALID'> {}

export function approvalSigningBytes(a: Omit<ApprovalRecord, 'signature'>): Buffer {
  return canonicalBytes({
    purpose: 'payout-desk/approval',
    version: 1,
    approval: {
      id: a.id, profileId: a.profileId, subject: { kind: a.subject.kind, id: a.subject.id }, manifestDigest: a.manifestDigest,
      policyVersion: a.policyVersion, decision: a.decision, reason: a.reason, signerId: a.signerId, signedAt: a.signedAt,
    },
  });
}

/** Signs the person's decision on this manifest. A rejection needs a reason. */
export function signApproval(session: UnlockedSession, input: { id: string; manifest: Manifest; decision: Decision; reason?: string | null; signedAt: number }): ApprovalRecord {
  const reason = input.reason?.trim() || null;
  if (input.decision === 'reject' && !reason) throw new ApprovalError('REASON_REQUIRED', 'A rejection needs a reason');
  const unsigned: Omit<ApprovalRecord, 'signature'> = {
    id: input.id, profileId: input.manifest.profileId, subject: { ...input.manifest.subject }, manifestDigest: manifestDigest(input.manifest),
    policyVersion: input.manifest.policyVersion, decision: input.decision, reason, signerId: session.personId, signedAt: input.signedAt,
  };
  return { ...unsigned, signature: session.sign(approvalSigningBytes(unsigned)) };
}

/** True when the signature is the named signer's, over exactly these fields. */
export function approvalSignatureValid(a: ApprovalRecord, publicKeySpki: string): boolean {
  return personSignatureValid(approvalSigningBytes(a), a.signature, publicKeySpki);
}
