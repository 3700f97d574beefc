// audit:* — the audit log belongs to a profile's journal; verify walks the sealed chain with the
// keychain's audit key and checks it reaches the entry the keychain anchored (main/store/sqlite/audit-seal.ts).
// A desk of a team has two logs: the team's (signed per desk, main/store/postgres/audit-seal.ts) and its own, where
// its own security actions are (runtime.ownLogFor); list and verify cover both.
import type { AuditEntryView, AuditVerification, BadApproval, BadPolicy } from '../../contract/api';
import { approvalSignatureValid } from '../approvals/approval';
import { subjectText } from '../approvals/manifest';
import type { AuditEntry } from '../journal';
import type { AuditProblemCode, AuditVerifyResult } from '../audit/chain';
import type { ProfileAreaService } from './profile-binding';
import type { DeskRuntime } from './runtime';
import { iso, toJson } from './convert';
import { plural } from '../../contract/plural';

const entryView = (log: AuditEntryView['log']) => (e: AuditEntry): AuditEntryView => ({
  seq: e.seq, at: iso(e.at), action: e.action, subject: e.subject, details: toJson({ actor: e.actor, ...(typeof e.details === 'object' && e.details ? e.details : { value: e.details }) }),
  hash: e.hash, log,
});

export function auditService(rt: DeskRuntime): ProfileAreaService<'audit'> {
  return {
    async list(profile, { offset = 0, limit = 200 }) {
      const own = await rt.ownLogFor(profile.id);
      if (!own) {
        // A single desk: its journal pages the audit log by sequence number, newest first.
        const entries = await (await rt.journalFor(profile.id)).listAudit(offset + limit);
        return { items: entries.slice(offset, offset + limit).map(entryView('desk')), total: entries[0]?.seq ?? 0, offset, limit };
      }
      // A desk of a team: the team's log and this desk's own, newest first by time. Without the team database,
      // this desk's own entries are still shown (the app says the database is gone; verify says what is not checked).
      const mine = await own.journal.listAudit(offset + limit);
      const team = await rt.journalFor(profile.id).then((j) => j.listAudit(offset + limit)).catch((error: unknown) => {
        rt.log.warn('the team audit log could not be read', { profileId: profile.id, error });
        return [] as AuditEntry[];
      });
      const merged = [...team.map(entryView('team')), ...mine.map(entryView('desk'))].sort((a, b) => b.at.localeCompare(a.at));
      return { items: merged.slice(offset, offset + limit), total: (team[0]?.seq ?? 0) + (mine[0]?.seq ?? 0), offset, limit };
    },
    async verify(profile) {
      const own = await rt.ownLogFor(profile.id);
      if (!own) {
        const result = await (await rt.auditSeal(profile.id)).verify();
        return withApprovals(verificationView(result), await badApprovals(rt, profile.id), await badPolicies(rt, profile.id));
      }
      const mine = verificationView(await own.seal.verify());
      try {
        const team = verificationView(await (await rt.auditSeal(profile.id)).verify());
        return withApprovals(bothLogs(team, mine), await badApprovals(rt, profile.id), await badPolicies(rt, profile.id));
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        return { ...mine, ok: false, message: `Team log: cannot be checked (${reason}). This desk's own log: ${mine.message}` };
      }
    },
  };
}

/** The team's log and this desk's own, in one answer: intact only if both are. */
function bothLogs(team: AuditVerification, mine: AuditVerification): AuditVerification {
  return {
    ...team,
    ok: team.ok && mine.ok,
    checked: team.checked + mine.checked,
    firstBrokenSeq: team.firstBrokenSeq ?? mine.firstBrokenSeq,
    message: `Team log: ${team.message}. This desk's own log: ${mine.message}`,
  };
}

/**
 * Re-checks every stored approval: its Ed25519 signature, over all its fields (the manifest digest, the
 * subject, the policy version, the decision, the signer and the time), against the signer's public key
 * as the verified control chain holds it. A row edited in the approvals table, or one inserted without the key, fails.
 */
export async function badApprovals(rt: DeskRuntime, profileId: string): Promise<AuditVerification['approvals']> {
  const repo = await rt.dualControlFor(profileId);
  const people = new Map((await rt.controlFor(profileId)).people.map((p) => [p.id, p]));
  const approvals = await repo.listApprovals(Number.MAX_SAFE_INTEGER);
  const bad: BadApproval[] = [];
  for (const a of approvals) {
    const signer = people.get(a.signerId);
    const subject = subjectText(a.subject);
    if (!signer) bad.push({ approvalId: a.id, subject, signerId: a.signerId, signerName: null, problem: `approval ${a.id} of ${subject} names no person of this desk as signer (${a.signerId})` });
    else if (!approvalSignatureValid(a, signer.publicKey)) {
      bad.push({ approvalId: a.id, subject, signerId: a.signerId, signerName: signer.name, problem: `the signature of ${signer.name} on approval ${a.id} of ${subject} does not verify against their public key and the stored manifest digest: the approval was altered or forged` });
    }
  }
  return { checked: approvals.length, bad };
}

/**
 * Re-checks the control chain (people, roles, policy versions, desks: main/trust/) against this desk's pin:
 * every record's link and signatures, and that it still reaches what this desk verified before.
 */
export async function badPolicies(rt: DeskRuntime, profileId: string): Promise<AuditVerification['policies']> {
  const state = await rt.controlFor(profileId);
  const bad: BadPolicy[] = state.problem ? [{ version: state.records.length + 1, problem: `control records: ${state.problem.message}` }] : [];
  return { checked: state.records.length, bad };
}

function withApprovals(chain: AuditVerification, approvals: AuditVerification['approvals'], policies: AuditVerification['policies']): AuditVerification {
  const problems = [...approvals.bad.map((b) => `Bad approval: ${b.problem}`), ...policies.bad.map((b) => `Bad policy: ${b.problem}`)];
  if (problems.length === 0) {
    const checked = [approvals.checked > 0 ? `all ${plural(approvals.checked, 'approval signature')}` : '', policies.checked > 0 ? `all ${plural(policies.checked, 'control record')}` : ''].filter(Boolean);
    return { ...chain, approvals, policies, message: checked.length > 0 ? `${chain.message}; ${checked.join(' and ')} verify` : chain.message };
  }
  const more = problems.length > 1 ? ` (and ${problems.length - 1} more)` : '';
  return { ...chain, ok: false, approvals, policies, message: `${chain.message}. ${problems[0]}${more}` };
}

const CANNOT_CHECK = new Set<AuditProblemCode>(['KEY_MISSING', 'ANCHOR_MISSING']);
/**
 * Entries signed by a key no admin registered (a team's log, dual control on): never intact, but not called
 * "Tampered", since a desk that has just joined signs its first entries before an admin can register it; an
 * admin compares the key's fingerprint with that desk and registers it. An attacker's key reads the same way
 * until then, and an admin who did not compare never registers it.
 */
const NOT_THE_TEAMS = new Set<AuditProblemCode>(['UNREGISTERED_SIGNER']);

/**
 * The answer of audit:verify. A log that was changed names its first bad entry; one that cannot be
 * checked here (its key or anchor is not in this keychain) says exactly that instead of "tampered";
 * entries of an unregistered desk are said to be not the team's.
 */
export function verificationView(result: AuditVerifyResult): AuditVerification {
  const none = { approvals: { checked: 0, bad: [] }, policies: { checked: 0, bad: [] } };
  if (result.ok) return { ok: true, checked: result.entries, firstBrokenSeq: null, message: result.entries === 0 ? 'No audit entries yet' : `All ${result.entries} audit entries are intact`, ...none };
  const broken = result.problems.filter((p) => !CANNOT_CHECK.has(p.code) && !NOT_THE_TEAMS.has(p.code));
  const unregistered = result.problems.filter((p) => NOT_THE_TEAMS.has(p.code));
  const unchecked = result.problems.filter((p) => CANNOT_CHECK.has(p.code));
  const first = broken[0];
  const parts = [
    ...(first ? [`Tampered: ${first.message}${broken.length > 1 ? ` (and ${broken.length - 1} more problem${broken.length > 2 ? 's' : ''})` : ''}`] : []),
    ...unregistered.map((p) => `Not the team's: ${p.message}`),
    ...unchecked.map((p) => `Cannot check: ${p.message}`),
  ];
  return { ok: false, checked: result.entries, firstBrokenSeq: first?.seq ?? null, message: parts.join('. '), ...none };
}
