// approvals:* — dual control's queue and decisions over IPC, on the active profile: what waits for
// approval (batches paused and payouts held by the gate), a subject's manifest and decisions, approve
// (the passphrase is asked again and the signature made in main), reject with a reason, and the policy.
// Everything is worked out from the journal by the dual-control service the CLI uses too.
// The queue answers within a time budget: a subject whose manifest, digests and payee flags are not known under the
// journal as it is now (the first open after start, or after any write) and that does not fit in the budget is
// listed as 'unchecked', from cheap reads only (title, who prepared it, its send state, a batch's totals as
// submitted), never with a verdict; a background pass works those out one subject at a time, yielding to the event
// loop, and says approvalsChanged when the queue can be read checked. approvals:show always checks in full.
import { performance } from 'node:perf_hooks';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type {
  ApprovalDecisionView, ApprovalDetail, ApprovalItem, ApprovalRowView, ApprovalState, ApprovalStatusView, ApprovalSubjectRef, PersonRef, PolicyView,
} from '../../contract/api';
import type { ApprovalRecord } from '../approvals/approval';
import { manifestDecimals, manifestFromJournal } from '../approvals/gate';
import { decimalOf, type Subject } from '../approvals/manifest';
import type { DualControlService, PersonView, ShowOptions, SubjectView } from './dual-control';
import { proposalInfo, unlockedOrThrow } from './people';
import { verifyCode } from './second-factor-ipc';
import type { ProfileAreaService } from './profile-binding';
import type { DeskRuntime } from './runtime';
import { DeskError } from './services';
import { stillNeededText, type StillNeededFix } from './still-needed';
import { possibleDuplicatesOfRows } from './possible-duplicate';
import { journalWriteMarker } from './subject-facts';
import { Journal } from '../store/sqlite';

/** The way out the screens name when nobody left can approve. */
const SCREEN_FIX: StillNeededFix = { grant: 'grant the approver role to another person (People)', policy: 'lower the policy (Settings)' };

/** Rows of a manifest shown with a subject; the totals always cover every row. */
export const MANIFEST_ROWS_SHOWN = 500;

type Names = (id: string) => PersonRef;

/**
 * How long an open of the queue works out subjects not known yet before it lists the rest unchecked (issue 25:
 * the queue opens in < 300 ms; reading the waiting subjects and building the items takes the rest).
 */
export const QUEUE_CHECK_BUDGET_MS = 100;
/** Rows of the largest subject an open works out itself (some 15 ms here): a bigger one could overrun the budget alone. */
export const QUEUE_CHECK_ROWS_MAX = 2_000;
/**
 * Rows of a subject an open always works out itself, whatever the time spent: a held payout or a small batch costs a
 * few ms, and an approver must see it counted at once. On a busy machine the budget ran out on two small subjects and
 * the background pass, given up while the journal was being written, left one uncounted for seconds (e2e).
 */
export const QUEUE_CHECK_ROWS_ALWAYS = 50;

/** Passes given up because the journal was written meanwhile, tried again before waiting for the next open. */
const BACKGROUND_RETRIES = 5;

/** The background passes of each runtime, per profile: one at a time, shared by every approvals service on it. */
const passesOf = new WeakMap<DeskRuntime, Map<string, Promise<void>>>();

/** Resolves when the queue's background pass for the profile (if any) is over: for tests and benches. */
export function queueChecked(rt: DeskRuntime, profileId: string): Promise<void> {
  return passesOf.get(rt)?.get(profileId) ?? Promise.resolve();
}

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

/**
 * `checkBudgetMs`: QUEUE_CHECK_BUDGET_MS unless a test says otherwise; `alwaysRows`: QUEUE_CHECK_ROWS_ALWAYS unless a
 * test says otherwise (a budget of 0 with alwaysRows 0: nothing unknown is worked out in the open).
 */
export function approvalsService(rt: DeskRuntime, dc: DualControlService, options: { checkBudgetMs?: number; alwaysRows?: number } = {}): ProfileAreaService<'approvals'> {
  const budgetMs = options.checkBudgetMs ?? QUEUE_CHECK_BUDGET_MS;
  const alwaysRows = options.alwaysRows ?? QUEUE_CHECK_ROWS_ALWAYS;
  /** The subject's view, or null when the journal has no such subject. */
  const viewOf = async (profileId: string, subject: Subject, options: ShowOptions = {}): Promise<SubjectView | null> => {
    try {
      return await dc.show(profileId, subject, options);
    } catch (error) {
      if (error instanceof DeskError && error.code === 'NOT_FOUND') return null;
      throw error;
    }
  };

  /** What the journal says of the subject without reading its rows; `totals`: a batch's as submitted, a payout's own amount. */
  const titleAndState = async (profileId: string, subject: Subject): Promise<{ title: string; sendState: string; preparedAt: string | null; rows: number; totals: ApprovalItem['totals'] }> => {
    const journal = await rt.journalFor(profileId);
    const money = (amountMinor: number, currencyCode: string) => ({ amount: decimalOf(amountMinor, manifestDecimals(currencyCode)), currencyCode });
    if (subject.kind === 'batch') {
      const batch = await journal.getBatch(subject.id);
      return {
        title: batch?.fileName ?? subject.id, sendState: batch?.state ?? 'UNKNOWN', preparedAt: batch ? new Date(batch.createdAt).toISOString() : null,
        rows: batch?.rowCount ?? 0, totals: (batch?.totals ?? []).map((t) => ({ money: money(t.amountMinor, t.currencyCode), count: t.count })),
      };
    }
    const payout = await journal.getPayment('payout', subject.id);
    return {
      title: payout?.accountName ?? subject.id, sendState: payout?.state ?? 'UNKNOWN', preparedAt: payout ? new Date(payout.createdAt).toISOString() : null,
      rows: payout ? 1 : 0, totals: payout ? [{ money: money(payout.amountMinor, payout.currencyCode), count: 1 }] : [],
    };
  };

  /** How many rows a subject has, as the journal recorded it at submit: what working it out will cost, roughly. */
  const rowsOf = async (profileId: string, subject: Subject): Promise<number> =>
    subject.kind === 'payout' ? 1 : ((await (await rt.journalFor(profileId)).getBatch(subject.id))?.rowCount ?? 0);

  const meOf = (profileId: string, people: PersonView[]): PersonView | undefined => {
    const session = rt.peekSession(profileId);
    return session ? people.find((p) => p.id === session.personId && p.revokedAt === null) : undefined;
  };

  /**
   * A subject not checked yet: only what is read without its rows, and no verdict (no approval is counted or shown
   * as counted before its manifest is rebuilt and its signatures checked). Nobody is asked to act on it yet.
   */
  const uncheckedItemOf = async (profileId: string, subject: Subject, people: PersonView[]): Promise<ApprovalItem | null> => {
    const prepared = await (await rt.journalFor(profileId)).preparation(subject.kind, subject.id);
    if (!prepared) return null;
    const me = meOf(profileId, people);
    const { title, sendState, preparedAt, rows, totals } = await titleAndState(profileId, subject);
    return {
      subject: { kind: subject.kind, id: subject.id }, enforced: true, state: 'unchecked', required: 0, approvedBy: [], rejectedBy: [],
      message: 'Not checked yet: its rows, signatures and payees are being checked; open it to check it now', stillNeeded: null,
      title, sendState, preparedAt, preparedBy: prepared.preparedBy ? namesOf(people)(prepared.preparedBy) : null, rows, totals,
      forMe: false, preparedByMe: me !== undefined && prepared.preparedBy === me.id,
    };
  };

  const itemOf = async (profileId: string, view: SubjectView, people: PersonView[]): Promise<ApprovalItem> => {
    const names = namesOf(people);
    const approvals = await (await rt.dualControlFor(profileId)).approvalsFor(view.subject);
    const status = statusView(view, approvals, names);
    const me = meOf(profileId, people);
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

  /** The subjects the queue weighs: batches running or paused, single payouts held by the gate. */
  const waitingSubjects = async (profileId: string): Promise<Subject[]> => {
    const journal = await rt.journalFor(profileId);
    const subjects: Subject[] = (await journal.batchesIn(['SCHEDULED', 'RUNNING', 'PAUSED'])).map((b) => ({ kind: 'batch' as const, id: b.id }));
    for (const id of await dc.heldPayoutIds(profileId)) subjects.push({ kind: 'payout', id });
    return subjects;
  };

  /**
   * Works out, one subject per turn of the event loop, the facts of every waiting subject not known yet, then says
   * approvalsChanged (the screens and the alerts read the queue again, checked). Given up as soon as the journal is
   * written meanwhile (what it worked out would not be served): tried again a second later, a few times (a batch
   * sending writes all the time; the next open of the queue starts again), never once the journal is closed.
   */
  const checkInBackground = (profileId: string, attempt = 0): void => {
    let passes = passesOf.get(rt);
    if (!passes) passesOf.set(rt, (passes = new Map()));
    if (passes.has(profileId)) return;
    const pass = (async () => {
      await nextTurn();
      const journal = await rt.journalFor(profileId);
      if (!(journal instanceof Journal)) return;
      const marker = journalWriteMarker(journal);
      const open = () => journal.db.open;
      const stillSo = () => open() && journalWriteMarker(journal) === marker;
      let worked = 0;
      for (const subject of await waitingSubjects(profileId)) {
        if (!stillSo()) break;
        if ((await dc.knownView(profileId, subject)) !== undefined) continue;
        await viewOf(profileId, subject, { reuse: true });
        worked++;
        await nextTurn();
      }
      if (stillSo()) {
        if (worked > 0) changed(profileId, null);
      } else if (open() && attempt < BACKGROUND_RETRIES) {
        setTimeout(() => open() && checkInBackground(profileId, attempt + 1), 1_000).unref();
      }
    })()
      .catch((error: unknown) => rt.log.warn('the approvals queue could not be checked in the background', { error }))
      .finally(() => passes.delete(profileId));
    passes.set(profileId, pass);
  };

  const policyView = async (profileId: string): Promise<PolicyView> => {
    const { policy, isDefault, enforced } = await dc.policy(profileId);
    const names = namesOf(await dc.listPeople(profileId));
    return {
      version: policy.version, isDefault, enforced,
      rules: {
        bands: Object.fromEntries(Object.entries(policy.rules.bands).map(([c, bands]) => [c, bands.map((b) => ({ ...b }))])), newOrChangedPayee: policy.rules.newOrChangedPayee,
        ...(policy.rules.secondAdmin ? { secondAdmin: true } : {}),
        ...(policy.rules.secondFactor ? { secondFactor: true } : {}),
        ...(policy.rules.countPossibleDuplicates ? { countPossibleDuplicates: true } : {}),
      },
      setBy: policy.setBy ? names(policy.setBy) : null,
      setAt: policy.setAt ? new Date(policy.setAt).toISOString() : null,
    };
  };

  return {
    async queue(profile) {
      const started = performance.now();
      if (!(await dc.policy(profile.id)).enforced) return [];
      const subjects = await waitingSubjects(profile.id);
      const people = await dc.listPeople(profile.id);
      const items: ApprovalItem[] = [];
      // Digests and payee flags reused while the journal saw no write since the last open (subject-facts.ts).
      await dc.keepFactsOf(profile.id, subjects);
      // A journal without write markers (the team's on PostgreSQL) reuses nothing: every subject is worked out now.
      // Nor does a desk given no time limit (the CLI: its process ends before a background pass would).
      const lazy = Number.isFinite(budgetMs) && journalWriteMarker(await rt.journalFor(profile.id)) !== null;
      let unchecked = false;
      for (const subject of subjects) {
        let view = lazy ? await dc.knownView(profile.id, subject) : undefined;
        const rows = view === undefined && lazy ? await rowsOf(profile.id, subject) : 0;
        if (view === undefined && lazy && rows > alwaysRows && (performance.now() - started >= budgetMs || rows > QUEUE_CHECK_ROWS_MAX)) {
          const cheap = await uncheckedItemOf(profile.id, subject, people);
          if (cheap) items.push(cheap);
          unchecked = true;
          continue;
        }
        if (view === undefined) view = await viewOf(profile.id, subject, { reuse: true });
        if (!view) continue;
        const item = await itemOf(profile.id, view, people);
        // Approved and already on its way: nothing left for dual control to show.
        const waitsForSender = item.sendState === 'PAUSED' || item.sendState === 'HELD';
        if (item.state === 'not-needed' || (item.state === 'approved' && !waitsForSender)) continue;
        items.push(item);
      }
      if (unchecked) checkInBackground(profile.id);
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
