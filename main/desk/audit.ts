// audit:* — the audit log belongs to a profile's journal; verify walks the hash chain.
import type { AuditEntryView } from '../../preload/api';
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
      const result = rt.journalFor(profile.id).verifyAudit();
      const first = result.problems[0];
      return {
        ok: result.ok,
        checked: result.entries,
        firstBrokenSeq: first?.seq ?? null,
        message: result.ok ? `All ${result.entries} audit entries are intact` : `${result.problems.length} problem(s): ${first?.message ?? ''}`,
      };
    },
  };
}
