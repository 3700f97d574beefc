// Rejections this desk signed, kept in its own OS keychain as well as in the journal or team database (which
// others can write): someone with the journal file or the database's owner password who deletes the approvals
// would otherwise erase a "no", and the next approver's "yes" would send what was rejected. The gate reads the
// kept copies beside the stored ones (gate.ts); each is the signed record itself, so it counts only while it
// verifies, like any other. One entry per rejected subject, small enough for every OS keychain:
//   profile:<id>:rejections:<kind>:<subject id>  [approval record, ...]
import { z } from 'zod';
import type { ApprovalRecord } from './approval';
import type { Subject } from './manifest';
import { readKeychainJson, type KeyStore } from '../keys/key-store';
import { builtOnFirstUse } from '../built-on-first-use';

/** A subject's rejections kept at most (the newest): a rejection is voided by a change of policy or manifest anyway. */
const KEPT_PER_SUBJECT = 3;

export const keptRejectionsAccount = (profileId: string, subject: Subject) => `profile:${profileId}:rejections:${subject.kind}:${subject.id}`;

const keptSchema = builtOnFirstUse(() =>
  z.array(
    z.object({
      id: z.string(),
      profileId: z.string(),
      subject: z.object({ kind: z.enum(['payout', 'batch']), id: z.string() }),
      manifestDigest: z.string(),
      policyVersion: z.number().int().min(0),
      decision: z.literal('reject'),
      reason: z.string().nullable(),
      signerId: z.string(),
      signedAt: z.number(),
      signature: z.string(),
      recordedAt: z.number().optional(),
    }),
  ),
);

export async function keptRejections(keyStore: KeyStore, profileId: string, subject: Subject): Promise<ApprovalRecord[]> {
  return (await readKeychainJson(keyStore, keptRejectionsAccount(profileId, subject), keptSchema())) ?? [];
}

/** Keeps a rejection this desk just stored; `recordedAt` is when this desk took it (roles must hold then too). */
export async function keepRejection(keyStore: KeyStore, profileId: string, rejection: ApprovalRecord, recordedAt: number): Promise<void> {
  if (rejection.decision !== 'reject') return;
  const kept = await keptRejections(keyStore, profileId, rejection.subject);
  const next = [...kept.filter((k) => k.id !== rejection.id), { ...rejection, recordedAt }].slice(-KEPT_PER_SUBJECT);
  await keyStore.set(keptRejectionsAccount(profileId, rejection.subject), JSON.stringify(next));
}

/** The stored approvals with this desk's kept rejections the store no longer holds (`missing`: deleted there). */
export function withKeptRejections(stored: readonly ApprovalRecord[], kept: readonly ApprovalRecord[]): { approvals: ApprovalRecord[]; missing: ApprovalRecord[] } {
  const ids = new Set(stored.map((a) => a.id));
  const missing = kept.filter((k) => !ids.has(k.id));
  return { approvals: [...stored, ...missing], missing };
}
