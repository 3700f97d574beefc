// The payee book as application services, behind the IPC handlers (payees-ipc.ts) the screens and the CLI call:
// list, add (by hand or from a payout, which is also how a CSV batch row becomes a payee: each row is a
// payout), edit, approve or reject a change of bank details, import and export as CSV, and the flags of a
// payout's or batch's rows (new payee, changed bank details) that count toward the approval policy.
//
// Who acts: once dual control is on (the profile has people or a policy), adding, editing and importing
// need an unlocked preparer, approving an approver; before that nobody needs to be named (an unlocked
// person is still recorded). A change of bank details (account number or operator), and a new payee whose
// account differs from every account the name was paid to before, wait for approval when dual control is
// on: the policy's newOrChangedPayee approvals, at least 1, never by whoever made the change. Other edits
// (name, e-mail, reference default) are in force at once. Everything is audited with the person as actor.
//
// With dual control on, the book is what holds when read (main/payees/book.ts): a version marked in force
// that its rows and approvals do not vouch for is listed as "not verified" with the reason, left out of the
// gate's flags, the CSV import's warnings and the export, and audited once (payee.ignored). Editing such a
// payee, even to the same details, submits its details again: for approval unless a trusted version had them.
import { randomUUID } from 'node:crypto';
import { parse } from 'csv-parse/sync';
import { manifestFromJournal } from '../approvals/gate';
import { subjectText, type Subject } from '../approvals/manifest';
import { checkAccountNumber } from '../csv/account-number';
import { decodeCsvBytes } from '../csv/decode';
import { detectDialect } from '../csv/dialect';
import { stringifyTable } from '../csv/export';
import { restoreCell } from '../csv/formula';
import type { CsvJournalLookup } from '../csv/types';
import { payeeKey } from '../domain/payee-key';
import type { UnlockedSession } from '../people/key-vault';
import { heldRoleAt, type Person, type Role } from '../people/roles';
import { payeeApprovalsRequired, signPayeeApproval, verifyPayeeChange, type PayeeDecision, type PayeeVerdict } from '../payees/approval';
import { accountDiffersFromPaid, judgePayee, PaidIndex, readBook, versionKey, type BookReading, type Standing } from '../payees/book';
import { flagPayeeRows, maskAccount, type PayeeFlag } from '../payees/match';
import {
  changeDigest, checkPayeeDetails, detailsOf, keysOf, PayeeError, sameBankDetails, sameDetails, stateOf,
  type PayeeDetails, type PayeeSource, type PayeeState, type PayeeVersion,
} from '../payees/payee';
import type { ControlState } from '../trust/control-state';
import { personActor } from './dual-control';
import { SecondFactorGate } from './second-factor-gate';
import type { DeskRuntime } from './runtime';
import { DeskError } from './services';
import { missingFrom, stillNeededText } from './still-needed';
import { plural } from '../../contract/plural';

export interface PayeeChangeView {
  version: number;
  before: PayeeDetails | null;
  after: PayeeDetails;
  bankChange: boolean;
  createdBy: string | null;
  createdAt: string;
  changeDigest: string;
  verdict: PayeeVerdict;
}

/** A version's state as the book reads it: 'not verified' is marked in force but not vouched for (book.ts). */
export type PayeeViewState = PayeeState | 'not verified';

export interface PayeeView extends PayeeDetails {
  id: string;
  /** The version in force (or, for a payee not in force yet, the one awaiting approval). */
  version: number;
  state: PayeeViewState;
  /** Why the version marked in force does not count (state 'not verified'); null otherwise. */
  problem: string | null;
  source: PayeeSource;
  sourceRef: string | null;
  since: string | null;
  /** A change awaiting approval, if any. */
  waiting: PayeeChangeView | null;
}

export interface PayeeInput {
  name?: string | null;
  accountNumber?: string | null;
  operatorCode?: string | null;
  emailAddress?: string | null;
  referenceDefault?: string | null;
}

export interface PayeeChangeResult {
  payee: PayeeView;
  /** The new version is in force now (false: it awaits approval). */
  inForce: boolean;
  message: string;
}

export interface PayeeImportIssue {
  rowNumber: number;
  column: string | null;
  message: string;
}

export interface PayeeImportResult {
  /** False when any row was bad: then nothing was imported. */
  imported: boolean;
  errors: PayeeImportIssue[];
  added: number;
  changed: number;
  awaitingApproval: number;
  unchanged: number;
  /** Rows repeating an earlier row of the file exactly (the same payee paid twice in a batch file). */
  repeated: number;
}

export interface PayeeService {
  list(profileId: string, options?: { all?: boolean }): Promise<PayeeView[]>;
  /** Every version of a payee, oldest first (the history of its details). */
  versions(profileId: string, payeeId: string): Promise<PayeeVersion[]>;
  /** A payee by id or by name (payeeKey: case, spacing and Unicode form ignored). */
  find(profileId: string, named: string): Promise<PayeeView>;
  add(profileId: string, input: PayeeInput, by: UnlockedSession | null): Promise<PayeeChangeResult>;
  /** A payee from a payout of the journal (a single payout or a batch row): its name, account, operator, e-mail, reference. */
  addFromPayout(profileId: string, paymentId: string, by: UnlockedSession | null): Promise<PayeeChangeResult>;
  edit(profileId: string, payeeId: string, patch: PayeeInput, by: UnlockedSession | null): Promise<PayeeChangeResult>;
  decide(profileId: string, payeeId: string, decision: PayeeDecision, reason: string | null, by: UnlockedSession): Promise<PayeeChangeResult>;
  /** Takes back a change awaiting approval (a preparer); the details in force stay. */
  withdraw(profileId: string, payeeId: string, by: UnlockedSession | null): Promise<PayeeChangeResult>;
  importCsv(profileId: string, bytes: Uint8Array, fileName: string, by: UnlockedSession | null): Promise<PayeeImportResult>;
  exportCsv(profileId: string): Promise<{ fileName: string; mimeType: string; content: string; rows: number }>;
  /** The rows of a payout or batch that go to a new payee or changed bank details. */
  flags(profileId: string, subject: Subject): Promise<PayeeFlag[]>;
}

/** CSV columns: the payout CSV's names, so a batch file imports as payees; the last three are for reading only. */
export const PAYEE_CSV_COLUMNS = ['accountName', 'accountNumber', 'paymentOperatorCode', 'emailAddress', 'reference', 'payeeId', 'version', 'since'] as const;
const COLUMN_ALIASES: Record<string, keyof PayeeDetails> = {
  accountname: 'name', name: 'name', accountnumber: 'accountNumber', paymentoperatorcode: 'operatorCode', operatorcode: 'operatorCode', operator: 'operatorCode',
  emailaddress: 'emailAddress', email: 'emailAddress', reference: 'referenceDefault', referencedefault: 'referenceDefault',
};
const COLUMN_NAMES: Record<keyof PayeeDetails, string> = { name: 'accountName', accountNumber: 'accountNumber', operatorCode: 'paymentOperatorCode', emailAddress: 'emailAddress', referenceDefault: 'reference' };
const MAX_IMPORT_ROWS = 10_000;

/**
 * The CSV import's journal lookup with the payee book in it: for a payee saved in the book (by name key, or
 * e-mail key) the account in force stands in for the accounts it was paid to, so the import's "bank details
 * changed" warning says what the gate will count (an approved change is no longer a warning; a row to
 * other details than the book's is one even if never paid). Payees not in the book: the journal, as before.
 */
export async function payeeAwareCsvLookup(rt: DeskRuntime, profileId: string, journal: CsvJournalLookup): Promise<CsvJournalLookup> {
  const repo = await rt.payeesFor(profileId);
  const open = await repo.list();
  const standings = await readBook(repo, bookReading(rt, profileId), open);
  const inForce = open.filter((v) => standings.get(versionKey(v))?.holds === true);
  if (inForce.length === 0) return journal;
  const byName = new Map(inForce.map((v) => [v.nameKey, v]));
  const byEmail = new Map(inForce.map((v) => [v.emailKey, v]));
  return {
    existingPayoutIds: (ids) => journal.existingPayoutIds(ids),
    batchFileSubmitted: (sha256) => journal.batchFileSubmitted(sha256),
    async knownBeneficiaryAccounts(keys) {
      const saved = keys.flatMap((k) => {
        const named = byName.get(payeeKey(k.accountName));
        const mailed = byEmail.get(payeeKey(k.emailAddress));
        return [
          ...(named ? [{ accountName: k.accountName, emailAddress: '', accountNumber: named.accountNumber }] : []),
          ...(mailed ? [{ accountName: '', emailAddress: k.emailAddress, accountNumber: mailed.accountNumber }] : []),
        ];
      });
      const paid = (await journal.knownBeneficiaryAccounts(keys)).filter((a) => !(a.accountName && byName.has(payeeKey(a.accountName))) && !(a.emailAddress && byEmail.has(payeeKey(a.emailAddress))));
      return [...paid, ...saved];
    },
  };
}

/** How the service and the gate read the book: under this desk's verified control state, audited as the desk. */
export const bookReading = (rt: DeskRuntime, profileId: string, control?: ControlState): BookReading => ({
  profileId,
  control: async () => control ?? (await rt.controlFor(profileId)),
  audit: (entry) => rt.audit(profileId, entry),
});

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
const issuesText = (issues: { message: string }[]) => issues.map((i) => i.message).join('; ');

export function payeeService(rt: DeskRuntime, options: { now?: () => number; secondFactor?: SecondFactorGate } = {}): PayeeService {
  const now = options.now ?? Date.now;
  const state = (profileId: string) => rt.controlFor(profileId);
  const book = (profileId: string) => rt.payeesFor(profileId);
  const secondFactor = options.secondFactor ?? new SecondFactorGate(rt, now);

  /** Who acts: with dual control on, an unlocked, unrevoked person holding `role`; before that, the unlocked person if any. */
  const acting = async (profileId: string, by: UnlockedSession | null, role: Role): Promise<{ person: Person | null; enforced: boolean; required: number; policyVersion: number; people: Person[] }> => {
    const s = await state(profileId);
    const base = { enforced: s.enforced, required: payeeApprovalsRequired(s.enforced, s.policy), policyVersion: s.policy.version, people: s.people };
    const person = by && !by.locked ? (s.people.find((p) => p.id === by.personId && p.publicKey === by.publicKey) ?? null) : null;
    if (!s.enforced) return { ...base, person };
    if (s.problem) throw new DeskError('CONTROL_BROKEN', s.problem.message);
    if (!by || by.locked) throw new DeskError('LOCKED', `Dual control is on for this profile: unlock as a ${role} first`);
    if (!person) throw new DeskError('NOT_ALLOWED', 'This session is not of a person of this profile');
    if (person.revokedAt !== null) throw new DeskError('NOT_ALLOWED', `${person.name} was revoked`);
    if (!heldRoleAt(person, role, now())) throw new DeskError('NOT_ALLOWED', `${person.name} does not hold the ${role} role`);
    return { ...base, person };
  };

  const audit = (profileId: string, person: Person | null, action: string, subject: string, details: Record<string, unknown>) =>
    rt.audit(profileId, { actor: person ? personActor(person) : undefined, action, subject, details: { ...details, by: person?.name ?? null } });

  /** The base version's details and the digest of a version recomputed from the stored rows. */
  const digestNow = (profileId: string, v: PayeeVersion, all: readonly PayeeVersion[]): string => {
    const base = v.baseVersion === null ? null : (all.find((x) => x.version === v.baseVersion) ?? null);
    return changeDigest({ profileId, payeeId: v.payeeId, version: v.version, before: base ? detailsOf(base) : null, after: detailsOf(v), createdBy: v.createdBy, createdAt: v.createdAt });
  };

  const changeView = async (profileId: string, v: PayeeVersion, all: readonly PayeeVersion[]): Promise<PayeeChangeView> => {
    const s = await state(profileId);
    const base = v.baseVersion === null ? null : (all.find((x) => x.version === v.baseVersion) ?? null);
    const verdict = verifyPayeeChange(profileId, v, digestNow(profileId, v, all), await (await book(profileId)).approvalsFor(v.payeeId, v.version), s.people, s.policy, payeeApprovalsRequired(s.enforced, s.policy));
    return { version: v.version, before: base ? detailsOf(base) : null, after: detailsOf(v), bankChange: v.bankChange, createdBy: v.createdBy, createdAt: new Date(v.createdAt).toISOString(), changeDigest: v.changeDigest, verdict };
  };

  /** Whether each version marked in force holds when read (every payee's whole history in `all`). */
  const standingsOf = async (profileId: string, all: readonly PayeeVersion[]): Promise<Map<string, Standing>> =>
    readBook(await book(profileId), bookReading(rt, profileId), all, { history: all, control: await state(profileId) });

  const viewOf = async (profileId: string, all: readonly PayeeVersion[], standings?: Map<string, Standing>): Promise<PayeeView> => {
    const current = all.find((v) => stateOf(v) === 'in force');
    const waiting = all.find((v) => stateOf(v) === 'awaiting approval');
    const shown = current ?? waiting ?? all[all.length - 1]!;
    const standing = current ? (standings ?? (await standingsOf(profileId, all))).get(versionKey(current)) : undefined;
    const problem = standing && !standing.holds ? standing.reason : null;
    return {
      id: shown.payeeId, version: shown.version, ...detailsOf(shown), state: problem ? 'not verified' : stateOf(shown), problem,
      source: shown.source, sourceRef: shown.sourceRef, since: iso(shown.effectiveAt ?? shown.createdAt),
      waiting: waiting ? await changeView(profileId, waiting, all) : null,
    };
  };

  /**
   * What new details for a payee change, and from which version: the version in force when it holds; else
   * (dual control on, that version not vouched for) the newest trusted version, or none, so that approvers see
   * the change from details that held, and a change of bank details is one against every trusted version.
   */
  const changeFrom = async (profileId: string, all: readonly PayeeVersion[], current: PayeeVersion, details: PayeeDetails, s: ControlState): Promise<{ bankChange: boolean; currentHolds: boolean; base: PayeeVersion | null }> => {
    const asBefore = { bankChange: !sameBankDetails(current, details), currentHolds: true, base: current };
    if (!s.enforced) return asBefore;
    const repo = await book(profileId);
    const paid = new PaidIndex(await repo.paidBefore(all.map((v) => v.nameKey), all.map((v) => v.emailKey), []));
    const judge = judgePayee(profileId, all, await repo.approvalsOf([current.payeeId]), paid, s);
    if (judge(current).standing.holds) return asBefore;
    const trusted = all.filter((v) => v !== current && judge(v).standing.holds).sort((a, b) => b.version - a.version);
    return { bankChange: !trusted.some((v) => sameBankDetails(v, details)), currentHolds: false, base: trusted[0] ?? null };
  };

  const mustVersions = async (profileId: string, payeeId: string): Promise<PayeeVersion[]> => {
    const all = await (await book(profileId)).versions(payeeId);
    if (all.length === 0) throw new DeskError('NOT_FOUND', `No payee ${payeeId} in this profile's payee book`);
    return all;
  };

  const checked = (input: PayeeInput): PayeeDetails => {
    const { details, issues } = checkPayeeDetails(input);
    if (!details) throw new DeskError('INVALID', `The payee cannot be saved: ${issuesText(issues)}`, false, issues);
    return details;
  };

  /** Accounts the name or e-mail was paid to before (the journal), none of them this account: a change of bank details. */
  const differsFromPaid = async (profileId: string, d: PayeeDetails): Promise<boolean> => {
    const { nameKey, emailKey } = keysOf(d);
    // The rule the book is read by too (book.ts): a first version holds when its account is not such a change.
    return accountDiffersFromPaid(await (await book(profileId)).paidBefore([nameKey], [emailKey], []), d.accountNumber);
  };

  const newVersion = (profileId: string, input: { payeeId: string; version: number; base: PayeeVersion | null; details: PayeeDetails; source: PayeeSource; sourceRef: string | null; bankChange: boolean; by: string | null; at: number; inForce: boolean }): PayeeVersion => ({
    payeeId: input.payeeId, version: input.version, baseVersion: input.base?.version ?? null, ...input.details, ...keysOf(input.details), source: input.source, sourceRef: input.sourceRef,
    bankChange: input.bankChange, createdAt: input.at, createdBy: input.by, effectiveAt: input.inForce ? input.at : null, closedAt: null, closedBy: null, closeReason: null,
    changeDigest: changeDigest({ profileId, payeeId: input.payeeId, version: input.version, before: input.base ? detailsOf(input.base) : null, after: input.details, createdBy: input.by, createdAt: input.at }),
  });

  /** The open versions of the payee under this name key (another payee's, when `other` is given). */
  const openNamed = async (profileId: string, nameKey: string, other?: string) =>
    (await (await book(profileId)).openByKeys([nameKey], [])).filter((v) => v.nameKey === nameKey && v.payeeId !== other);

  const store = async (profileId: string, versions: PayeeVersion[]) => {
    await rt.auditSeal(profileId);
    try {
      await (await book(profileId)).addVersions(versions);
    } catch (error) {
      if (error instanceof PayeeError) throw new DeskError(error.code, error.message);
      throw error;
    }
  };

  const changeMessage = (v: PayeeVersion, required: number) =>
    v.effectiveAt !== null ? `${v.name} version ${v.version} is in force` : `${v.name} version ${v.version} awaits ${plural(required, 'approval')} of its bank details; until then it is not in force`;

  const addFrom = async (profileId: string, input: PayeeInput, source: PayeeSource, sourceRef: string | null, by: UnlockedSession | null): Promise<PayeeChangeResult> => {
    const who = await acting(profileId, by, 'preparer');
    const details = checked(input);
    const existing = await openNamed(profileId, keysOf(details).nameKey);
    if (existing.length > 0) throw new DeskError('DUPLICATE', `${existing[0]!.name} is already in the payee book (${existing[0]!.payeeId}); change it with payees edit`);
    const bankChange = await differsFromPaid(profileId, details);
    const at = now();
    const v = newVersion(profileId, { payeeId: randomUUID(), version: 1, base: null, details, source, sourceRef, bankChange, by: who.person?.id ?? null, at, inForce: !(bankChange && who.required > 0) });
    await store(profileId, [v]);
    await audit(profileId, who.person, v.effectiveAt !== null ? 'payee.added' : 'payee.change-requested', v.payeeId, {
      name: v.name, account: maskAccount(v.accountNumber), operator: v.operatorCode, version: 1, source, sourceRef, bankChange, changeDigest: v.changeDigest,
    });
    const message = bankChange ? `${changeMessage(v, who.required)} (${v.name} was paid to other accounts before)` : changeMessage(v, who.required);
    return { payee: await viewOf(profileId, [v]), inForce: v.effectiveAt !== null, message };
  };

  const service: PayeeService = {
    async list(profileId, listOptions = {}) {
      // Every version (closed ones too): what a version in force is checked against.
      const every = await (await book(profileId)).list({ all: true });
      const standings = await standingsOf(profileId, every);
      const byPayee = new Map<string, PayeeVersion[]>();
      for (const v of every) byPayee.set(v.payeeId, [...(byPayee.get(v.payeeId) ?? []), v]);
      const listed = [...byPayee.values()].filter((all) => listOptions.all || all.some((v) => v.closedAt === null));
      const views = await Promise.all(listed.map((all) => viewOf(profileId, all, standings)));
      return views.sort((a, b) => payeeKey(a.name).localeCompare(payeeKey(b.name)) || (a.id < b.id ? -1 : 1));
    },

    versions: (profileId, payeeId) => mustVersions(profileId, payeeId),

    async find(profileId, named) {
      const byId = await (await book(profileId)).versions(named);
      if (byId.length > 0) return viewOf(profileId, byId);
      const open = await openNamed(profileId, payeeKey(named));
      const ids = [...new Set(open.map((v) => v.payeeId))];
      if (ids.length === 1) return viewOf(profileId, await (await book(profileId)).versions(ids[0]!));
      throw new DeskError('NOT_FOUND', ids.length > 1 ? `Several payees are named "${named}"; give the id (payees list)` : `No payee "${named}" in the payee book (payees list)`);
    },

    add: (profileId, input, by) => addFrom(profileId, input, 'hand', null, by),

    async addFromPayout(profileId, paymentId, by) {
      const p = await (await rt.journalFor(profileId)).getPayment('payout', paymentId);
      if (!p) throw new DeskError('NOT_FOUND', `No payout ${paymentId} in this profile's journal`);
      return addFrom(profileId, { name: p.accountName, accountNumber: p.accountNumber, operatorCode: p.paymentOperatorCode, emailAddress: p.emailAddress, referenceDefault: p.reference }, 'payout', paymentId, by);
    },

    async edit(profileId, payeeId, patch, by) {
      const who = await acting(profileId, by, 'preparer');
      const all = await mustVersions(profileId, payeeId);
      const current = all.find((v) => stateOf(v) === 'in force');
      if (all.some((v) => stateOf(v) === 'awaiting approval')) throw new DeskError('CHANGE_WAITING', `A change of ${all[all.length - 1]!.name} awaits approval: approve or reject it first`);
      if (!current) throw new DeskError('NOT_FOUND', `Payee ${payeeId} has no version in force (its first version was ${stateOf(all[all.length - 1]!)}); add it again`);
      const pick = <K extends keyof PayeeInput>(k: K) => (patch[k] === undefined ? current[k as keyof PayeeDetails] : patch[k]);
      const details = checked({ name: pick('name'), accountNumber: pick('accountNumber'), operatorCode: pick('operatorCode'), emailAddress: pick('emailAddress'), referenceDefault: pick('referenceDefault') });
      // A version in force that does not hold may be submitted again as it is: that is how it gets approved.
      const { bankChange, currentHolds, base } = await changeFrom(profileId, all, current, details, await state(profileId));
      if (currentHolds && sameDetails(details, current)) throw new DeskError('NOTHING_CHANGED', `Nothing changed: ${current.name} already has these details`);
      const clash = await openNamed(profileId, keysOf(details).nameKey, payeeId);
      if (clash.length > 0) throw new DeskError('DUPLICATE', `Another payee is named ${clash[0]!.name} (${clash[0]!.payeeId})`);
      const at = now();
      const version = Math.max(...all.map((v) => v.version)) + 1;
      const v = newVersion(profileId, { payeeId, version, base, details, source: 'hand', sourceRef: null, bankChange, by: who.person?.id ?? null, at, inForce: !(bankChange && who.required > 0) });
      await store(profileId, [v]);
      await audit(profileId, who.person, v.effectiveAt !== null ? 'payee.changed' : 'payee.change-requested', payeeId, {
        name: v.name, version, bankChange, from: { account: maskAccount(current.accountNumber), operator: current.operatorCode, name: current.name, email: current.emailAddress },
        to: { account: maskAccount(v.accountNumber), operator: v.operatorCode, name: v.name, email: v.emailAddress }, changeDigest: v.changeDigest,
      });
      return { payee: await viewOf(profileId, await mustVersions(profileId, payeeId)), inForce: v.effectiveAt !== null, message: changeMessage(v, who.required) };
    },

    async decide(profileId, payeeId, decision, reason, by) {
      const who = await acting(profileId, by, 'approver');
      const approver = who.person;
      if (!approver) throw new DeskError('NOT_ALLOWED', 'Only an unlocked approver of this profile decides on a payee change');
      const all = await mustVersions(profileId, payeeId);
      const waiting = all.find((v) => stateOf(v) === 'awaiting approval');
      if (!waiting) throw new DeskError('NOT_WAITING', `No change of ${all[all.length - 1]!.name} awaits approval`);
      if (waiting.createdBy === approver.id) throw new DeskError('SELF_APPROVAL', `${approver.name} made this change and cannot approve or reject it`);
      if (decision === 'reject' && !reason?.trim()) throw new DeskError('REASON_REQUIRED', 'A rejection needs a reason');
      const digest = digestNow(profileId, waiting, all);
      if (digest !== waiting.changeDigest) throw new DeskError('CHANGE_ALTERED', `The stored change of ${waiting.name} does not match its digest: it was altered; nobody can approve it`);
      const repo = await book(profileId);
      if (decision === 'approve') {
        await secondFactor.require(profileId, approver, (await state(profileId)).policy, 'approve', by);
        // A second approval by the same person would be recorded and counted once: refused, with who can still help.
        const s0 = await state(profileId);
        const before = verifyPayeeChange(profileId, waiting, digest, await repo.approvalsFor(payeeId, waiting.version), s0.people, s0.policy, payeeApprovalsRequired(s0.enforced, s0.policy));
        if (before.approvedBy.includes(approver.id)) {
          const missing = missingFrom(before, s0.people, waiting.createdBy, now());
          throw new DeskError('ALREADY_DECIDED', `${approver.name} approved this change of ${waiting.name} already and a second approval by the same person would not count${missing ? `; it ${stillNeededText(missing)}` : ''}`);
        }
      }
      const approval = signPayeeApproval(by, { id: randomUUID(), profileId, payeeId, payeeVersion: waiting.version, changeDigest: digest, policyVersion: who.policyVersion, decision, reason, signedAt: now() });
      await rt.auditSeal(profileId);
      await repo.addApproval(approval);
      await audit(profileId, approver, decision === 'approve' ? 'payee.approval.given' : 'payee.approval.rejected', payeeId, {
        name: waiting.name, version: waiting.version, changeDigest: digest, policyVersion: who.policyVersion, reason: approval.reason,
      });
      const s = await state(profileId);
      const verdict = verifyPayeeChange(profileId, waiting, digest, await repo.approvalsFor(payeeId, waiting.version), s.people, s.policy, payeeApprovalsRequired(s.enforced, s.policy));
      const at = now();
      let message = `${waiting.name} version ${waiting.version}: ${verdict.message}; not in force yet`;
      if (verdict.rejected) {
        await repo.close(payeeId, waiting.version, at, approver.id, 'rejected');
        await audit(profileId, approver, 'payee.change-rejected', payeeId, { name: waiting.name, version: waiting.version, reason: approval.reason });
        message = `${waiting.name} version ${waiting.version} was rejected; the details in force stay as they were`;
      } else if (verdict.ok) {
        try {
          await repo.activate(payeeId, waiting.version, at, approver.id);
        } catch (error) {
          if (error instanceof PayeeError) throw new DeskError(error.code, error.message);
          throw error;
        }
        await audit(profileId, approver, 'payee.change-approved', payeeId, { name: waiting.name, version: waiting.version, approvedBy: verdict.approvedBy, account: maskAccount(waiting.accountNumber), operator: waiting.operatorCode });
        message = `${waiting.name} version ${waiting.version} is in force (${verdict.message})`;
      }
      const after = await mustVersions(profileId, payeeId);
      return { payee: await viewOf(profileId, after), inForce: verdict.ok, message };
    },

    async withdraw(profileId, payeeId, by) {
      const who = await acting(profileId, by, 'preparer');
      const all = await mustVersions(profileId, payeeId);
      const waiting = all.find((v) => stateOf(v) === 'awaiting approval');
      if (!waiting) throw new DeskError('NOT_WAITING', `No change of ${all[all.length - 1]!.name} awaits approval`);
      await rt.auditSeal(profileId);
      await (await book(profileId)).close(payeeId, waiting.version, now(), who.person?.id ?? null, 'withdrawn');
      await audit(profileId, who.person, 'payee.change-withdrawn', payeeId, { name: waiting.name, version: waiting.version });
      return { payee: await viewOf(profileId, await mustVersions(profileId, payeeId)), inForce: false, message: `${waiting.name} version ${waiting.version} was withdrawn; the details in force stay as they were` };
    },

    async importCsv(profileId, bytes, fileName, by) {
      const who = await acting(profileId, by, 'preparer');
      const result: PayeeImportResult = { imported: false, errors: [], added: 0, changed: 0, awaitingApproval: 0, unchanged: 0, repeated: 0 };
      const fail = (rowNumber: number, column: string | null, message: string) => void result.errors.push({ rowNumber, column, message });
      // Row numbers as a spreadsheet shows them (as the batch import counts): the header is row 1 when it is the
      // first line, blank lines count, a quoted value spanning lines is one row, Excel's "sep=" line is not a row.
      let records: { record: string[]; rowNumber: number }[];
      let sepLine = false;
      try {
        const text = (await decodeCsvBytes(bytes, () => new Promise((resolve) => setImmediate(resolve)))).chunks.join('');
        const dialect = detectDialect(text);
        sepLine = dialect.sepLine;
        const all = parse(sepLine ? text.replace(/^[^\n]*\n/, '') : text, { delimiter: dialect.delimiter, relax_quotes: true, relax_column_count: true }) as string[][];
        records = all.map((record, i) => ({ record, rowNumber: i + 1 })).filter(({ record }) => record.some((cell) => cell.trim() !== ''));
      } catch (error) {
        throw new DeskError('INVALID_FILE', `${fileName} cannot be read as CSV: ${error instanceof Error ? error.message : String(error)}`);
      }
      const [header, ...rows] = records;
      if (!header) throw new DeskError('INVALID_FILE', `${fileName} is empty`);
      if (rows.length > MAX_IMPORT_ROWS) throw new DeskError('INVALID_FILE', `${fileName} has ${rows.length} rows; a payee book file holds at most ${MAX_IMPORT_ROWS}`);
      const columns = new Map<keyof PayeeDetails, number>();
      header.record.forEach((h, i) => {
        const field = COLUMN_ALIASES[h.trim().toLowerCase()];
        if (field && !columns.has(field)) columns.set(field, i);
      });
      const missing = (['name', 'accountNumber', 'operatorCode', 'emailAddress'] as const).filter((f) => !columns.has(f)).map((f) => COLUMN_NAMES[f]);
      if (missing.length > 0) throw new DeskError('MISSING_COLUMNS', `${fileName} lacks the ${missing.length === 1 ? 'column' : 'columns'} ${missing.join(', ')} (the columns are ${PAYEE_CSV_COLUMNS.slice(0, 5).join(', ')})`);

      // 1. Every row checked on its own; the file's repeats of one payee must agree.
      const seen = new Map<string, { row: number; details: PayeeDetails }>();
      const planned: { row: number; details: PayeeDetails }[] = [];
      for (const { record, rowNumber } of rows) {
        const cell = (f: keyof PayeeDetails) => restoreCell((record[columns.get(f) ?? -1] ?? '').trim());
        const rawAccount = cell('accountNumber');
        const damage = rawAccount ? checkAccountNumber(rawAccount) : null;
        const { details, issues } = checkPayeeDetails({ name: cell('name'), accountNumber: rawAccount, operatorCode: cell('operatorCode'), emailAddress: cell('emailAddress'), referenceDefault: cell('referenceDefault') });
        if (damage) fail(rowNumber, 'accountNumber', damage.message);
        for (const i of issues) if (!(damage && i.field === 'accountNumber')) fail(rowNumber, COLUMN_NAMES[i.field], i.message);
        if (!details || damage) continue;
        const key = keysOf(details).nameKey;
        const earlier = seen.get(key);
        if (earlier) {
          if (sameDetails(earlier.details, details)) result.repeated++;
          else fail(rowNumber, null, `${details.name} is on row ${earlier.row} with other details; one payee, one set of details`);
          continue;
        }
        seen.set(key, { row: rowNumber, details });
        planned.push({ row: rowNumber, details });
      }

      // 2. Against the book: new payees, changes (bank details wait for approval when dual control is on), unchanged.
      const openByName = new Map<string, PayeeVersion[]>();
      const open = await (await book(profileId)).openByKeys([...seen.keys()], []);
      for (const v of open) openByName.set(v.nameKey, [...(openByName.get(v.nameKey) ?? []), v]);
      const control = await state(profileId);
      const standings = await readBook(await book(profileId), bookReading(rt, profileId, control), open, { control });
      const at = now();
      const versions: PayeeVersion[] = [];
      const madeBy = who.person?.id ?? null;
      for (const { row, details } of planned) {
        const mine = openByName.get(keysOf(details).nameKey) ?? [];
        const current = mine.find((v) => stateOf(v) === 'in force');
        if (mine.some((v) => stateOf(v) === 'awaiting approval')) {
          fail(row, null, `a change of ${details.name} awaits approval: approve or reject it before importing other details`);
          continue;
        }
        // A version in force that does not hold is never "unchanged": importing its details submits them again.
        const holds = current !== undefined && standings.get(versionKey(current))?.holds === true;
        if (current && holds && sameDetails(current, details)) {
          result.unchanged++;
          continue;
        }
        if (current) {
          const all = await (await book(profileId)).versions(current.payeeId);
          const { bankChange, base } = holds ? { bankChange: !sameBankDetails(current, details), base: current } : await changeFrom(profileId, all, current, details, control);
          versions.push(newVersion(profileId, { payeeId: current.payeeId, version: Math.max(...all.map((v) => v.version)) + 1, base, details, source: 'import', sourceRef: fileName, bankChange, by: madeBy, at, inForce: !(bankChange && who.required > 0) }));
        } else {
          const bankChange = await differsFromPaid(profileId, details);
          versions.push(newVersion(profileId, { payeeId: randomUUID(), version: 1, base: null, details, source: 'import', sourceRef: fileName, bankChange, by: madeBy, at, inForce: !(bankChange && who.required > 0) }));
        }
      }
      if (result.errors.length > 0) {
        result.errors.sort((a, b) => a.rowNumber - b.rowNumber);
        return result;
      }
      await store(profileId, versions);
      for (const v of versions) {
        if (v.effectiveAt === null) result.awaitingApproval++;
        else if (v.version === 1) result.added++;
        else result.changed++;
        await audit(profileId, who.person, v.effectiveAt === null ? 'payee.change-requested' : v.version === 1 ? 'payee.added' : 'payee.changed', v.payeeId, {
          name: v.name, version: v.version, account: maskAccount(v.accountNumber), operator: v.operatorCode, source: 'import', sourceRef: fileName, bankChange: v.bankChange, changeDigest: v.changeDigest,
        });
      }
      await audit(profileId, who.person, 'payees.imported', fileName, { added: result.added, changed: result.changed, awaitingApproval: result.awaitingApproval, unchanged: result.unchanged, repeated: result.repeated });
      return { ...result, imported: true };
    },

    async exportCsv(profileId) {
      const inForce = (await service.list(profileId)).filter((p) => p.state === 'in force');
      const table = [
        [...PAYEE_CSV_COLUMNS],
        ...inForce.map((p) => [p.name, p.accountNumber, p.operatorCode, p.emailAddress, p.referenceDefault ?? '', p.id, String(p.version), p.since ?? '']),
      ];
      const content = `\ufeff${stringifyTable(table)}`;
      // Bank details leaving the desk: audited, with the person working on the profile if one is unlocked.
      const session = rt.sessionFor(profileId);
      const person = session ? ((await state(profileId)).people.find((p) => p.id === session.personId) ?? null) : null;
      await audit(profileId, person, 'payees.exported', profileId, { rows: inForce.length });
      return { fileName: `payees-${profileId}.csv`, mimeType: 'text/csv', content, rows: inForce.length };
    },

    async flags(profileId, subject) {
      const s = await state(profileId);
      const manifest = await manifestFromJournal(await rt.journalFor(profileId), s.scope, subject, s.policy.version);
      if (!manifest) throw new DeskError('NOT_FOUND', `No ${subjectText(subject)} in this profile's journal`);
      return flagPayeeRows(await book(profileId), manifest.rows, bookReading(rt, profileId, s));
    },
  };
  return service;
}
