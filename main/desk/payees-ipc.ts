// payees:* — the payee book of the active profile over IPC: list with the changes awaiting approval, a
// payee's versions, add, edit (a bank-detail change under dual control waits for approval), approve (the
// passphrase is asked again and the signature made in main), reject with a reason, withdraw, import a CSV
// the user chose in main's dialog (by its grant token, never a path) and export. The work is the payee
// service's (main/desk/payees.ts) that the CLI uses too; this only names who acts and shapes the answers.
// Account numbers leave main masked ("…3000"): the screen needs the ending, not the number.
// A payee whose version marked in force is not vouched for (dual control on, main/payees/book.ts) is not in
// force for the gate: until the contract names that state ('not verified'), it goes out as awaiting approval,
// never as in force.
import { readFile, stat } from 'node:fs/promises';
import type { PayeeChangeItem, PayeeChangeOutcome, PayeeDetailsView, PayeeItem, PayeeVersionItem, PersonRef } from '../../contract/api';
import { maskAccount } from '../payees/match';
import { stateOf, type PayeeDetails } from '../payees/payee';
import type { DualControlService, PersonView } from './dual-control';
import type { FileGrants } from './file-grants';
import { unlockedOrThrow } from './people';
import { verifyCode } from './second-factor-ipc';
import type { PayeeChangeResult, PayeeChangeView, PayeeService, PayeeView } from './payees';
import type { ProfileAreaService } from './profile-binding';
import type { DeskRuntime } from './runtime';
import { DeskError } from './services';

/** A payee CSV read whole into memory: the book holds at most 10,000 rows, far below this. */
const MAX_IMPORT_BYTES = 20 * 1024 * 1024;

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** The state the screen is told: a version in force that does not hold is not shown as in force. */

export const payeeDetailsView = (d: PayeeDetails): PayeeDetailsView => ({
  name: d.name, accountMasked: maskAccount(d.accountNumber), operatorCode: d.operatorCode, emailAddress: d.emailAddress, referenceDefault: d.referenceDefault,
});

export function payeesIpcService(rt: DeskRuntime, dc: DualControlService, payees: PayeeService, files: FileGrants): ProfileAreaService<'payees'> {
  const namesOf = (people: PersonView[]) => {
    const byId = new Map(people.map((p) => [p.id, p.name]));
    return (id: string): PersonRef => ({ id, name: byId.get(id) ?? '(no such person)' });
  };

  const changeItem = (profileId: string, c: PayeeChangeView, people: PersonView[]): PayeeChangeItem => {
    const names = namesOf(people);
    const session = rt.peekSession(profileId);
    const me = session ? people.find((p) => p.id === session.personId && p.revokedAt === null) : undefined;
    const byMe = me !== undefined && c.createdBy === me.id;
    const decided = me !== undefined && c.verdict.checks.some((k) => k.signerId === me.id);
    return {
      version: c.version,
      before: c.before ? payeeDetailsView(c.before) : null,
      after: payeeDetailsView(c.after),
      bankChange: c.bankChange,
      createdBy: c.createdBy ? names(c.createdBy) : null,
      createdAt: c.createdAt,
      required: c.verdict.required,
      approvedBy: c.verdict.approvedBy.map(names),
      message: c.verdict.message,
      forMe: me !== undefined && me.roles.includes('approver') && !byMe && !decided,
      byMe,
    };
  };

  const item = (profileId: string, v: PayeeView, people: PersonView[]): PayeeItem => ({
    id: v.id, version: v.version, ...payeeDetailsView(v), state: v.state, problem: v.problem, source: v.source, sourceRef: v.sourceRef, since: v.since,
    waiting: v.waiting ? changeItem(profileId, v.waiting, people) : null,
  });

  const outcome = async (profileId: string, r: PayeeChangeResult): Promise<PayeeChangeOutcome> => {
    // Approving a bank-detail change changes what the gate counts for payouts waiting to that payee.
    rt.events.emit('approvalsChanged', { profileId, subject: null });
    return { payee: item(profileId, r.payee, await dc.listPeople(profileId)), inForce: r.inForce, message: r.message };
  };

  /** The unlocked person, or nobody while dual control is off (the payee service decides whether that will do). */
  const actor = (profileId: string) => rt.sessionFor(profileId) ?? null;

  return {
    async list(profile, { all }) {
      const [views, people] = await Promise.all([payees.list(profile.id, { all: all ?? false }), dc.listPeople(profile.id)]);
      return views.map((v) => item(profile.id, v, people));
    },
    async versions(profile, { payeeId }) {
      const [all, people] = await Promise.all([payees.versions(profile.id, payeeId), dc.listPeople(profile.id)]);
      if (all.length === 0) throw new DeskError('NOT_FOUND', `No payee ${payeeId} in this profile's payee book`);
      const names = namesOf(people);
      const now = await payees.find(profile.id, payeeId);
      return all.map((v): PayeeVersionItem => ({
        ...payeeDetailsView(v), version: v.version, state: v.version === now.version ? now.state : stateOf(v), bankChange: v.bankChange, source: v.source,
        createdBy: v.createdBy ? names(v.createdBy) : null, createdAt: new Date(v.createdAt).toISOString(), effectiveAt: iso(v.effectiveAt), closedAt: iso(v.closedAt),
      }));
    },
    async add(profile, input) {
      return outcome(profile.id, await payees.add(profile.id, input, actor(profile.id)));
    },
    async edit(profile, { payeeId, ...patch }) {
      return outcome(profile.id, await payees.edit(profile.id, payeeId, patch, actor(profile.id)));
    },
    async approve(profile, { payeeId, passphrase, code }) {
      const session = unlockedOrThrow(rt, profile.id, 'approve a payee change');
      // The passphrase again, for this signature: a desk left unlocked does not approve on its own.
      const signer = await dc.unlock(profile.id, session.personId, passphrase);
      try {
        if (code !== undefined) await verifyCode(rt, dc, profile.id, session, code);
        return await outcome(profile.id, await payees.decide(profile.id, payeeId, 'approve', null, signer));
      } finally {
        signer.lock();
      }
    },
    async reject(profile, { payeeId, reason }) {
      const session = unlockedOrThrow(rt, profile.id, 'reject a payee change');
      return outcome(profile.id, await payees.decide(profile.id, payeeId, 'reject', reason.trim(), session));
    },
    async withdraw(profile, { payeeId }) {
      return outcome(profile.id, await payees.withdraw(profile.id, payeeId, actor(profile.id)));
    },
    async import(profile, { source }) {
      // Only a file main's dialog chose or the user dropped: the page cannot name a path.
      const { path, fileName } = files.resolve(source.token, 'csv');
      const unreadable = (error: NodeJS.ErrnoException): never => {
        throw new DeskError('FILE_NOT_FOUND', `${fileName} cannot be read: ${error.code ?? error.message}`);
      };
      // The size first: a file far larger than any payee book is refused without reading it.
      if ((await stat(path).catch(unreadable)).size > MAX_IMPORT_BYTES) throw new DeskError('INVALID_FILE', `${fileName} is larger than ${MAX_IMPORT_BYTES / 1024 / 1024} MB`);
      const bytes = await readFile(path).catch(unreadable);
      const result = await payees.importCsv(profile.id, bytes, fileName, actor(profile.id));
      if (result.imported) rt.events.emit('approvalsChanged', { profileId: profile.id, subject: null });
      return { fileName, ...result };
    },
    export: (profile) => payees.exportCsv(profile.id),
    async addFromPayout(profile, { idPayout }) {
      return outcome(profile.id, await payees.addFromPayout(profile.id, idPayout, actor(profile.id)));
    },
  };
}
