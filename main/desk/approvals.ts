// approvals:* — dual control's queue and decisions over IPC, on the active profile: what waits for
// approval (batches paused and payouts held by the gate), a subject's manifest and decisions, approve
// (the passphrase is asked again and the signature made in main), reject with a reason, and the policy.
// Everything is worked out from the journal by the dual-control service the CLI uses too.
import type {
  ApprovalDecisionView, ApprovalDetail, ApprovalItem, ApprovalRowView, ApprovalState, ApprovalStatusView, ApprovalSubjectRef, PersonRef, PolicyView,
} from '../../contract/api';
import type { ApprovalRecord } from '../approvals/approval';
import { manifestFromJournal } from '../approvals/gate';
import type { Subject } from '../approvals/manifest';
import type { DualControlService, PersonView, ShowOptions, SubjectView } from './dual-control';
import { proposalInfo, unlockedOrThrow } from './people';
import { verifyCode } from './second-factor-ipc';
import type { ProfileAreaService } from './profile-binding';
import type { DeskRuntime } from './runtime';
import { DeskError } from './services';
import { stillNeededText, type StillNeededFix } from './still-needed';
import { possibleDuplicatesOfRows } from './possible-duplicate';

/** The way out the screens name when nobody left can approve. */
const SCREEN_FIX: StillNeededFix = { grant: 'grant the approver role to another person (People)', policy: 'lower the policy (Settings)' };

/** Rows of a manifest shown with a subject; the totals always cover every row. */
export const MANIFEST_ROWS_SHOWN = 500;

type Names = (id: string) => PersonRef;

const namesOf = (people: PersonView[]): Names => {
  const byId = new Map(people.map((p) => [p.id, p.name]));
  return (id) => ({ id, name: byId.get(id) ?? '(no such person)' });
};

/** Rows the payee book flags as a new payee or changed bank details (the same count the gate uses). */
export function payeeFlagsOf(view: SubjectView): ReadonlyMap<string, 'new' | 'changed'> {
  return new Map(view.payeeFlags.map((f) => [f.rowId, f.flag]));
}

export function approvalStateOf(view: SubjectView): ApprovalState {
  if (!view.enforced) return 'not-needed';
  if (view.verdict.code === 'REJECTED') return 'rejected';
  if (view.verdict.ok) return view.verdict.requirement.required === 0 ? 'not-needed' : 'approved';
  return 'waiting';
}

function statusView(view: SubjectView, approvals: ApprovalRecord[], names: Names): ApprovalStatusView {
  const reasons = new Map(approvals.map((a) => [a.id, a.reason]));
  return {
    subject: { kind: view.subject.kind, id: view.subject.id },
    enforced: view.enforced,
    state: approvalStateOf(view),
    required: view.verdict.requirement.required,
    approvedBy: view.verdict.approvedBy.map(names),
    rejectedBy: view.verdict.checks.filter((c) => c.status === 'REJECTED').map((c) => ({ ...names(c.signerId), reason: reasons.get(c.approvalId) ?? null })),
    message: view.verdict.message,
    stillNeeded: view.stillNeeded ? { more: view.stillNeeded.more, from: view.stillNeeded.from, text: stillNeededText(view.stillNeeded, SCREEN_FIX) } : null,
  };
}

export function approvalsService(rt: DeskRuntime, dc: DualControlService): ProfileAreaService<'approvals'> {
  /** The subject's view, or null when the journal has no such subject. */
  const viewOf = async (profileId: string, subject: Subject, options: ShowOptions = {}): Promise<SubjectView | null> => {
    try {
      return await dc.show(profileId, subject, options);
    } catch (error) {
      if (error instanceof DeskError && error.code === 'NOT_FOUND') return null;
      throw error;
    }
  };

  const titleAndState = async (profileId: string, subject: Subject): Promise<{ title: string; sendState: string; preparedAt: string | null }> => {
    const journal = await rt.journalFor(profileId);
    if (subject.kind === 'batch') {
      const batch = await journal.getBatch(subject.id);
      return { title: batch?.fileName ?? subject.id, sendState: batch?.state ?? 'UNKNOWN', preparedAt: batch ? new Date(batch.createdAt).toISOString() : null };
    }
    const payout = await journal.getPayment('payout', subject.id);
    return { title: payout?.accountName ?? subject.id, sendState: payout?.state ?? 'UNKNOWN', preparedAt: payout ? new Date(payout.createdAt).toISOString() : null };
  };

  const itemOf = async (profileId: string, view: SubjectView, people: PersonView[]): Promise<ApprovalItem> => {
    const names = namesOf(people);
    const approvals = await (await rt.dualControlFor(profileId)).approvalsFor(view.subject);
    const status = statusView(view, approvals, names);
    const session = rt.peekSession(profileId);
    const me = session ? people.find((p) => p.id === session.personId && p.revokedAt === null) : undefined;
    const preparedByMe = me !== undefined && view.preparedBy === me.id;
    const decidedByMe = me !== undefined && approvals.some((a) => a.signerId === me.id);
    const { title, sendState, preparedAt } = await titleAndState(profileId, view.subject);
    return {
      ...status,
      title,
      sendState,
      preparedAt,
      preparedBy: view.preparedBy ? names(view.preparedBy) : null,
      rows: view.rows,
      totals: view.totals.map((t) => ({ money: { amount: t.amount, currencyCode: t.currency }, count: t.count })),
      forMe: status.state === 'waiting' && me !== undefined && me.roles.includes('approver') && !preparedByMe && !decidedByMe,
      preparedByMe,
    };
  };

  const detailOf = async (profileId: string, subject: Subject): Promise<ApprovalDetail> => {
    const view = await viewOf(profileId, subject);
    if (!view) throw new DeskError('NOT_FOUND', `No ${subject.kind} ${subject.id} in this profile's journal`);
    const people = await dc.listPeople(profileId);
    const names = namesOf(people);
    const item = await itemOf(profileId, view, people);
    const manifest = await manifestFromJournal(await rt.journalFor(profileId), profileId, subject, view.policyVersion);
    const flags = payeeFlagsOf(view);
    const rows = manifest?.rows ?? [];
    const windowDays = rt.ctx.profiles.get(profileId).repeatWindowDays;
    const duplicates = await possibleDuplicatesOfRows(await rt.journalFor(profileId), rows, subject.kind === 'batch' ? subject.id : null, windowDays);
    // Rows to a new payee, changed bank details or like an earlier payout first, so none is cut off by the rows shown.
    const marked = (id: string) => flags.has(id) || duplicates.has(id);
    const ordered = flags.size === 0 && duplicates.size === 0 ? rows : [...rows.filter((r) => marked(r.id)), ...rows.filter((r) => !marked(r.id))];
    const manifestRows: ApprovalRowView[] = ordered.slice(0, MANIFEST_ROWS_SHOWN).map((r) => ({
      id: r.id, money: { amount: r.amount, currencyCode: r.currency }, payeeName: r.payeeName, account: r.account, operator: r.operator, method: r.method, email: r.email,
      payeeFlag: flags.get(r.id) ?? null,
      possibleDuplicate: duplicates.get(r.id) ?? null,
    }));
    const checks = new Map(view.verdict.checks.map((c) => [c.approvalId, c]));
    const decisions: ApprovalDecisionView[] = (await (await rt.dualControlFor(profileId)).approvalsFor(subject)).map((a) => ({
      approvalId: a.id, signer: names(a.signerId), decision: a.decision, reason: a.reason, signedAt: new Date(a.signedAt).toISOString(),
      status: checks.get(a.id)?.status ?? 'unchecked', message: checks.get(a.id)?.message ?? '',
    }));
    return { ...item, manifestDigest: view.manifestDigest, fileSha256: view.fileSha256, policyVersion: view.policyVersion, manifestRows, rowsShown: manifestRows.length, possibleDuplicates: duplicates.size, decisions };
  };

  const changed = (profileId: string, subject: ApprovalSubjectRef | null) => rt.events.emit('approvalsChanged', { profileId, subject });

  const policyView = async (profileId: string): Promise<PolicyView> => {
    const { policy, isDefault, enforced } = await dc.policy(profileId);
    const names = namesOf(await dc.listPeople(profileId));
    return {
      version: policy.version, isDefault, enforced,
      rules: {
        bands: Object.fromEntries(Object.entries(policy.rules.bands).map(([c, bands]) => [c, bands.map((b) => ({ ...b }))])), newOrChangedPayee: policy.rules.newOrChangedPayee,
        ...(policy.rules.secondAdmin ? { secondAdmin: true } : {}),
        ...(policy.rules.secondFactor ? { secondFactor: true } : {}),
      },
      setBy: policy.setBy ? names(policy.setBy) : null,
      setAt: policy.setAt ? new Date(policy.setAt).toISOString() : null,
    };
  };

  return {
    async queue(profile) {
      if (!(await dc.policy(profile.id)).enforced) return [];
      const journal = await rt.journalFor(profile.id);
      const subjects: Subject[] = (await journal.batchesIn(['RUNNING', 'PAUSED'])).map((b) => ({ kind: 'batch' as const, id: b.id }));
      for (const id of await dc.heldPayoutIds(profile.id)) subjects.push({ kind: 'payout', id });
      const people = await dc.listPeople(profile.id);
      const items: ApprovalItem[] = [];
      // Digests and payee flags reused while the journal saw no write since the last open (subject-facts.ts).
      await dc.keepFactsOf(profile.id, subjects);
      for (const subject of subjects) {
        const view = await viewOf(profile.id, subject, { reuse: true });
        if (!view) continue;
        const item = await itemOf(profile.id, view, people);
        // Approved and already on its way: nothing left for dual control to show.
        const waitsForSender = item.sendState === 'PAUSED' || item.sendState === 'HELD';
        if (item.state === 'not-needed' || (item.state === 'approved' && !waitsForSender)) continue;
        items.push(item);
      }
      return items.sort((a, b) => (b.preparedAt ?? '').localeCompare(a.preparedAt ?? ''));
    },
    show: (profile, ref) => detailOf(profile.id, ref),
    async status(profile, { subjects }) {
      const enforced = (await dc.policy(profile.id)).enforced;
      const names = namesOf(enforced ? await dc.listPeople(profile.id) : []);
      const out: ApprovalStatusView[] = [];
      for (const subject of subjects) {
        const view = enforced ? await viewOf(profile.id, subject) : null;
        if (!view) {
          out.push({ subject, enforced: false, state: 'not-needed', required: 0, approvedBy: [], rejectedBy: [], message: enforced ? `No ${subject.kind} ${subject.id} in this profile's journal` : 'dual control is not set up on this desk', stillNeeded: null });
          continue;
        }
        out.push(statusView(view, await (await rt.dualControlFor(profile.id)).approvalsFor(subject), names));
      }
      return out;
    },
    async approve(profile, { kind, id, passphrase, code }) {
      const session = unlockedOrThrow(rt, profile.id, 'approve');
      // The passphrase again, for this signature: a desk left unlocked does not approve on its own.
      const signer = await dc.unlock(profile.id, session.personId, passphrase);
      try {
        if (code !== undefined) await verifyCode(rt, dc, profile.id, session, code);
        await dc.decide(profile.id, { kind, id }, 'approve', null, signer);
      } finally {
        signer.lock();
      }
      changed(profile.id, { kind, id });
      return detailOf(profile.id, { kind, id });
    },
    async reject(profile, { kind, id, reason }) {
      const session = unlockedOrThrow(rt, profile.id, 'reject');
      await dc.decide(profile.id, { kind, id }, 'reject', reason.trim(), session);
      changed(profile.id, { kind, id });
      return detailOf(profile.id, { kind, id });
    },
    policy: (profile) => policyView(profile.id),
    async setPolicy(profile, { rules }) {
      const { proposal } = await dc.setPolicy(profile.id, rules, unlockedOrThrow(rt, profile.id, 'change the approval policy (as an admin)'));
      changed(profile.id, null);
      return { ...(await policyView(profile.id)), proposal: proposal ? proposalInfo(proposal) : null };
    },
  };
}
