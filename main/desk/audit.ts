// audit:* — the audit log belongs to a profile's journal; verify walks the sealed chain with the
// keychain's audit key and checks it reaches the entry the keychain anchored (main/desk/audit-keys.ts).
import type { AuditEntryView, AuditVerification } from '../../preload/api';
import type { AuditProblemCode, AuditVerifyResult } from '../journal';
import type { ProfileAreaService } from './profile-binding';
import type { DeskRuntime } from './runtime';
import { iso, toJson } from './convert';

export function auditService(rt: DeskRuntime): ProfileAreaService<'audit'> {
  return {
    async list(profile, { offset = 0, limit = 200 }) {
      const journal = rt.journalFor(profile.id);
      // The journal pages the audit log by sequence number; the newest entries come first.
      const entries = journal.listAudit(offset + limit);
      const items: AuditEntryView[] = entries.slice(offset, offset + limit).map((e) => ({
        seq: e.seq, at: iso(e.at), action: e.action, subject: e.subject, details: toJson({ actor: e.actor, ...(typeof e.details === 'object' && e.details ? e.details : { value: e.details }) }), hash: e.hash,
      }));
      const newest = entries[0]?.seq ?? 0;
      return { items, total: newest, offset, limit };
    },
    async verify(profile) {
      const result = await (await rt.auditSeal(profile.id)).verify();
      return verificationView(result);
    },
  };
}

const CANNOT_CHECK = new Set<AuditProblemCode>(['KEY_MISSING', 'ANCHOR_MISSING']);

/**
 * The answer of audit:verify. A log that was changed names its first bad entry; one that cannot be
 * checked here (its key or anchor is not in this keychain) says exactly that instead of "tampered".
 */
export function verificationView(result: AuditVerifyResult): AuditVerification {
  if (result.ok) return { ok: true, checked: result.entries, firstBrokenSeq: null, message: `All ${result.entries} audit entries are intact` };
  const broken = result.problems.filter((p) => !CANNOT_CHECK.has(p.code));
  const unchecked = result.problems.filter((p) => CANNOT_CHECK.has(p.code));
  const first = broken[0];
  const parts = [
    ...(first ? [`Tampered: ${first.message}${broken.length > 1 ? ` (and ${broken.length - 1} more problem${broken.length > 2 ? 's' : ''})` : ''}`] : []),
    ...unchecked.map((p) => `Cannot check: ${p.message}`),
  ];
  return { ok: false, checked: result.entries, firstBrokenSeq: first?.seq ?? null, message: parts.join('. ') };
}
