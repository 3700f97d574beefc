// Dual control as application services, shared by the CLI now and the IPC handlers and screens later:
// people (add, list, change roles, revoke, unlock), approvals (list, show, approve, reject) and the
// approval policy (show, set). Every change is audited with the person who made it as actor. Who acts
// is an UnlockedSession: a person who proved their passphrase; only the first person is added without one.
// Rule: passphrases and private keys are never audited, logged or returned.
import { randomUUID } from 'node:crypto';
import { approvalSignatureValid, signApproval, type ApprovalRecord, type Decision } from '../approvals/approval';
import type { ApprovalExportRow } from '../csv/export';
import { dualControlState, manifestFromJournal } from '../approvals/gate';
import { manifestDigest, subjectText, type Manifest, type Subject } from '../approvals/manifest';
import { checkRules, signPolicy, type ApprovalPolicy, type PolicyRules } from '../approvals/policy';
import { verifyApprovals, type Verdict } from '../approvals/verify';
import { flagPayeeRows, type PayeeFlag } from '../payees/match';
import { PersonKeyVault, type UnlockedSession } from '../people/key-vault';
import { publicKeyFingerprint, type KdfParams } from '../people/person-key';
import { checkPersonInput, currentRoles, heldRoleAt, PeopleError, ROLES, type Person, type Role } from '../people/roles';
import type { DeskRuntime } from './runtime';
import { DeskError } from './services';

export interface PersonView {
  id: string;
  name: string;
  roles: Role[];
  fingerprint: string;
  createdAt: string;
  revokedAt: string | null;
  revokeReason: string | null;
  /** This machine's keychain holds their sealed signing key. */
  keyOnThisMachine: boolean;
}

export interface SubjectView {
  subject: Subject;
  manifestDigest: string;
  preparedBy: string | null;
  fileSha256: string | null;
  rows: number;
  totals: Manifest['totals'];
  policyVersion: number;
  enforced: boolean;
  /** Rows going to a new payee or to changed bank details (the payee book), with why: they count toward the policy's newOrChangedPayee. */
  payeeFlags: PayeeFlag[];
  verdict: Verdict;
}

export const personActor = (p: { id: string }) => `person:${p.id}`;

/**
 * Who prepares what is about to be journalled on this profile: the unlocked person at this desk. Once dual
 * control is on (the profile has people), preparing needs an unlocked, unrevoked person holding the
 * preparer role; before that, nobody needs to be named (the desk works as it always did).
 */
export async function preparedByFor(rt: DeskRuntime, profileId: string, now = Date.now()): Promise<string | undefined> {
  return workingPersonFor(rt, profileId, 'preparer', now);
}

/**
 * Who sends: releasing a held payout and resuming (or starting again) a paused batch are the send
 * actions, so once dual control is on they need an unlocked, unrevoked person holding the sender role,
 * who is recorded as the actor. Approvals say what may go; the sender says it goes now.
 */
export async function senderFor(rt: DeskRuntime, profileId: string, now = Date.now()): Promise<string | undefined> {
  return workingPersonFor(rt, profileId, 'sender', now);
}

/** The unlocked person at this desk holding `role` now (required once dual control is on); their id. */
async function workingPersonFor(rt: DeskRuntime, profileId: string, role: 'preparer' | 'sender', now: number): Promise<string | undefined> {
  const session = rt.sessionFor(profileId);
  const state = await dualControlState(await rt.dualControlFor(profileId), profileId, rt.ctx.profiles.get(profileId).environment);
  if (!state.enforced) return session?.locked === false ? session.personId : undefined;
  if (!session || session.locked) throw new DeskError('LOCKED', `Dual control is on for this profile: unlock as a ${role} first; nothing was sent`);
  const person = state.people.find((p) => p.id === session.personId && p.publicKey === session.publicKey);
  if (!person || person.revokedAt !== null || !heldRoleAt(person, role, now)) {
    throw new DeskError('NOT_ALLOWED', `${person?.name ?? 'This person'} does not hold the ${role} role now; nothing was sent`);
  }
  return person.id;
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/**
 * The approvals stored for a subject as export rows: signer, roles at signing, decision, time, the digest
 * signed (and whether the journal's rows still give it), the signature and the signer's public key.
 */
export async function approvalExportRows(rt: DeskRuntime, profileId: string, subject: Subject): Promise<ApprovalExportRow[]> {
  const repo = await rt.dualControlFor(profileId);
  const approvals = await repo.approvalsFor(subject);
  if (approvals.length === 0) return [];
  const people = new Map((await repo.listPeople()).map((p) => [p.id, p]));
  const journal = await rt.journalFor(profileId);
  const digests = new Map<number, string | null>();
  for (const version of new Set(approvals.map((a) => a.policyVersion))) {
    const manifest = await manifestFromJournal(journal, profileId, subject, version);
    digests.set(version, manifest ? manifestDigest(manifest) : null);
  }
  const digestNow = (version: number): string | null => digests.get(version) ?? null;
  return approvals.map((a) => {
    const signer = people.get(a.signerId);
    return {
      subjectKind: a.subject.kind, subjectId: a.subject.id, approvalId: a.id, decision: a.decision, reason: a.reason, signerId: a.signerId,
      signerName: signer?.name ?? '(no such person)', signerRolesAtSigning: signer ? ROLES.filter((r) => heldRoleAt(signer, r, a.signedAt)).join(' ') : '',
      signerRevokedAt: iso(signer?.revokedAt ?? null), signedAt: new Date(a.signedAt).toISOString(), policyVersion: a.policyVersion, manifestSha256: a.manifestDigest,
      manifestMatchesJournal: digestNow(a.policyVersion) === a.manifestDigest, signatureValid: signer !== undefined && approvalSignatureValid(a, signer.publicKey),
      signatureBase64: a.signature, signerPublicKeySpkiBase64: signer?.publicKey ?? '',
    };
  });
}

export interface DualControlService {
  listPeople(profileId: string): Promise<PersonView[]>;
  /**
   * A person sets themselves up at their own desk: their key is made in this desk's keychain (a team: each
   * person's key only on their own machine), with the viewer role only, which lets them do nothing but look;
   * an admin grants more, from any desk, after checking the fingerprint with them. Refused while nobody is set
   * up (the first person is added, and gets every role).
   */
  enroll(profileId: string, input: { name: string; passphrase: string }): Promise<{ person: PersonView }>;
  /** The first person needs no session and gets every role; later ones are added by an unlocked admin. */
  addPerson(profileId: string, input: { name: string; roles: readonly string[]; passphrase: string }, by: UnlockedSession | null): Promise<{ person: PersonView; warning: string | null }>;
  setRoles(profileId: string, personId: string, roles: readonly string[], by: UnlockedSession): Promise<PersonView>;
  /** Revokes a person: they can no longer sign, and their approvals of anything not yet sent are void. */
  revokePerson(profileId: string, personId: string, reason: string, by: UnlockedSession): Promise<{ person: PersonView; approvalsVoided: number }>;
  unlock(profileId: string, personId: string, passphrase: string): Promise<UnlockedSession>;
  /** "Lock": the person working on this profile at this desk is forgotten now; false when nobody was unlocked. */
  lock(profileId: string): Promise<boolean>;
  listApprovals(profileId: string, limit?: number): Promise<ApprovalRecord[]>;
  show(profileId: string, subject: Subject): Promise<SubjectView>;
  decide(profileId: string, subject: Subject, decision: Decision, reason: string | null, by: UnlockedSession): Promise<{ approval: ApprovalRecord; view: SubjectView }>;
  policy(profileId: string): Promise<{ policy: ApprovalPolicy; isDefault: boolean; enforced: boolean }>;
  setPolicy(profileId: string, rules: PolicyRules, by: UnlockedSession): Promise<ApprovalPolicy>;
}

export function dualControlService(rt: DeskRuntime, options: { kdf?: KdfParams; now?: () => number } = {}): DualControlService {
  const now = options.now ?? Date.now;
  const vault = new PersonKeyVault(rt.ctx.keyStore, options);
  const environmentOf = (profileId: string) => rt.ctx.profiles.get(profileId).environment;
  const state = async (profileId: string) => dualControlState(await rt.dualControlFor(profileId), profileId, environmentOf(profileId));

  const view = async (p: Person): Promise<PersonView> => ({
    id: p.id, name: p.name, roles: currentRoles(p), fingerprint: publicKeyFingerprint(p.publicKey), createdAt: new Date(p.createdAt).toISOString(),
    revokedAt: iso(p.revokedAt), revokeReason: p.revokeReason, keyOnThisMachine: await vault.has(p.id).catch(() => false),
  });

  const mustGet = async (profileId: string, personId: string): Promise<Person> => {
    const person = await (await rt.dualControlFor(profileId)).getPerson(personId);
    if (!person) throw new DeskError('NOT_FOUND', `No person ${personId} on this profile`);
    return person;
  };

  /** The session's person, holding `role` now and not revoked. */
  const acting = async (profileId: string, session: UnlockedSession, role: Role): Promise<Person> => {
    if (session.locked) throw new DeskError('LOCKED', 'The desk is locked; unlock with your passphrase first');
    const person = await mustGet(profileId, session.personId);
    if (person.publicKey !== session.publicKey) throw new DeskError('NOT_ALLOWED', 'This session is not of a person of this profile');
    if (person.revokedAt !== null) throw new DeskError('NOT_ALLOWED', `${person.name} was revoked`);
    if (!heldRoleAt(person, role, now())) throw new DeskError('NOT_ALLOWED', `${person.name} does not hold the ${role} role`);
    return person;
  };

  const activeAdmins = (people: Person[], at: number) => people.filter((p) => p.revokedAt === null && heldRoleAt(p, 'admin', at));

  const subjectView = async (profileId: string, subject: Subject): Promise<SubjectView> => {
    const s = await state(profileId);
    const manifest = await manifestFromJournal(await rt.journalFor(profileId), profileId, subject, s.policy.version);
    if (!manifest) throw new DeskError('NOT_FOUND', `No ${subjectText(subject)} in this profile's journal`);
    // The same count the gate passes (runtime.ts), so what an approver is shown is what the send is checked against.
    const payeeFlags = await flagPayeeRows(await rt.payeesFor(profileId), manifest.rows);
    const verdict = verifyApprovals(manifest, await (await rt.dualControlFor(profileId)).approvalsFor(subject), s.people, s.policy, { now: now(), newOrChangedPayees: payeeFlags.length });
    return {
      subject, manifestDigest: manifestDigest(manifest), preparedBy: manifest.preparedBy, fileSha256: manifest.fileSha256, rows: manifest.rows.length,
      totals: manifest.totals, policyVersion: manifest.policyVersion, enforced: s.enforced, payeeFlags, verdict,
    };
  };

  /** Approvals by this person of payouts and batches that may still send (never created yet). */
  const pendingApprovalsBy = async (profileId: string, personId: string): Promise<number> => {
    const journal = await rt.journalFor(profileId);
    const mine = (await (await rt.dualControlFor(profileId)).listApprovals(100_000)).filter((a) => a.signerId === personId && a.decision === 'approve');
    let pending = 0;
    for (const a of mine) {
      // As the gate sees it: a row may still leave under this approval while it is certainly not at the gateway.
      if (a.subject.kind === 'batch') {
        if ((await journal.unsentPayments('payout', a.subject.id)).some((p) => p.state === 'QUEUED' && p.unknownSince === null)) pending++;
        continue;
      }
      const p = await journal.getPayment('payout', a.subject.id);
      if (p !== undefined && (p.state === 'QUEUED' || p.state === 'HELD') && p.unknownSince === null) pending++;
    }
    return pending;
  };

  return {
    async listPeople(profileId) {
      return Promise.all((await (await rt.dualControlFor(profileId)).listPeople()).map(view));
    },

    async addPerson(profileId, input, by) {
      const repo = await rt.dualControlFor(profileId);
      const people = await repo.listPeople();
      const first = people.length === 0;
      const { name, roles } = first ? checkPersonInput(input.name, ['preparer', 'approver', 'sender', 'viewer', 'admin']) : checkPersonInput(input.name, input.roles);
      let admin: Person | null = null;
      if (!first) {
        if (!by) throw new DeskError('NOT_ALLOWED', 'Only an unlocked admin can add people');
        admin = await acting(profileId, by, 'admin');
      }
      const id = randomUUID();
      const { publicKey } = await vault.create(id, input.passphrase);
      const at = now();
      await rt.auditSeal(profileId);
      await repo.addPerson({ id, name, publicKey, createdAt: at, createdBy: admin?.id ?? null, revokedAt: null, revokedBy: null, revokeReason: null }, roles, at, admin?.id ?? null);
      await rt.audit(profileId, { actor: admin ? personActor(admin) : undefined, action: 'person.added', subject: id, details: { name, roles, fingerprint: publicKeyFingerprint(publicKey), by: admin?.name ?? null } });
      const warning = first ? `${name} holds every role: until someone else is added, nobody checks their payouts` : null;
      return { person: await view((await repo.getPerson(id))!), warning };
    },

    async enroll(profileId, input) {
      const repo = await rt.dualControlFor(profileId);
      if ((await repo.listPeople()).length === 0) {
        throw new DeskError('NO_PEOPLE', 'Nobody is set up on this profile yet: add the first person (they get every role) instead of enrolling');
      }
      const { name, roles } = checkPersonInput(input.name, ['viewer']);
      const id = randomUUID();
      const { publicKey } = await vault.create(id, input.passphrase);
      const at = now();
      await rt.auditSeal(profileId);
      await repo.addPerson({ id, name, publicKey, createdAt: at, createdBy: null, revokedAt: null, revokedBy: null, revokeReason: null }, roles, at, null);
      await rt.audit(profileId, { actor: personActor({ id }), action: 'person.enrolled', subject: id, details: { name, roles, fingerprint: publicKeyFingerprint(publicKey) } });
      return { person: await view((await repo.getPerson(id))!) };
    },

    async setRoles(profileId, personId, roles, by) {
      const admin = await acting(profileId, by, 'admin');
      const person = await mustGet(profileId, personId);
      const clean = checkPersonInput(person.name, roles).roles;
      const repo = await rt.dualControlFor(profileId);
      const at = now();
      if (!clean.includes('admin') && activeAdmins(await repo.listPeople(), at).every((p) => p.id === personId)) {
        throw new DeskError('LAST_ADMIN', `${person.name} is the last admin; make someone else admin first`);
      }
      const before = currentRoles(person);
      await repo.setRoles(personId, clean, at, admin.id);
      await rt.audit(profileId, { actor: personActor(admin), action: 'person.roles-changed', subject: personId, details: { name: person.name, from: before, to: clean, by: admin.name } });
      return view(await mustGet(profileId, personId));
    },

    async revokePerson(profileId, personId, reason, by) {
      const admin = await acting(profileId, by, 'admin');
      const person = await mustGet(profileId, personId);
      if (!reason.trim()) throw new DeskError('REASON_REQUIRED', 'Say why the person is revoked');
      const repo = await rt.dualControlFor(profileId);
      const at = now();
      if (activeAdmins(await repo.listPeople(), at).every((p) => p.id === personId)) throw new DeskError('LAST_ADMIN', `${person.name} is the last admin and cannot be revoked`);
      const approvalsVoided = await pendingApprovalsBy(profileId, personId);
      await repo.revokePerson(personId, at, admin.id, reason.trim());
      // Their approvals stay in the journal as history; verification refuses a revoked signer from now on.
      await vault.remove(personId).catch(() => undefined);
      await rt.audit(profileId, { actor: personActor(admin), action: 'person.revoked', subject: personId, details: { name: person.name, reason: reason.trim(), approvalsVoided, by: admin.name } });
      return { person: await view(await mustGet(profileId, personId)), approvalsVoided };
    },

    async unlock(profileId, personId, passphrase) {
      const person = await mustGet(profileId, personId);
      try {
        const session = await vault.unlock(person, passphrase);
        await rt.audit(profileId, { actor: personActor(person), action: 'person.unlocked', subject: personId, details: { name: person.name } });
        return session;
      } catch (error) {
        if (error instanceof PeopleError) {
          await rt.audit(profileId, { actor: personActor(person), action: 'person.unlock-failed', subject: personId, details: { name: person.name, code: error.code } });
          throw new DeskError(error.code, error.message);
        }
        throw error;
      }
    },

    lock: (profileId) => rt.lock(profileId),

    async listApprovals(profileId, limit = 100) {
      return (await rt.dualControlFor(profileId)).listApprovals(limit);
    },

    show: subjectView,

    async decide(profileId, subject, decision, reason, by) {
      const approver = await acting(profileId, by, 'approver');
      const s = await state(profileId);
      const manifest = await manifestFromJournal(await rt.journalFor(profileId), profileId, subject, s.policy.version);
      if (!manifest) throw new DeskError('NOT_FOUND', `No ${subjectText(subject)} in this profile's journal`);
      if (manifest.preparedBy === approver.id) throw new DeskError('SELF_APPROVAL', `${approver.name} prepared this ${subject.kind} and cannot approve or reject their own work`);
      let approval: ApprovalRecord;
      try {
        approval = signApproval(by, { id: randomUUID(), manifest, decision, reason, signedAt: now() });
      } catch (error) {
        if (error instanceof Error && 'code' in error) throw new DeskError(String((error as { code: string }).code), error.message);
        throw error;
      }
      await rt.auditSeal(profileId);
      await (await rt.dualControlFor(profileId)).addApproval(approval);
      await rt.audit(profileId, {
        actor: personActor(approver),
        action: decision === 'approve' ? 'approval.given' : 'approval.rejected',
        subject: subject.id,
        details: { kind: subject.kind, name: approver.name, manifestDigest: approval.manifestDigest, policyVersion: approval.policyVersion, reason: approval.reason },
      });
      return { approval, view: await subjectView(profileId, subject) };
    },

    async policy(profileId) {
      const s = await state(profileId);
      return { policy: s.policy, isDefault: s.policy.version === 0, enforced: s.enforced };
    },

    async setPolicy(profileId, rules, by) {
      const admin = await acting(profileId, by, 'admin');
      let checked: PolicyRules;
      try {
        checked = checkRules(rules);
      } catch (error) {
        throw new DeskError('INVALID_POLICY', error instanceof Error ? error.message : String(error));
      }
      const repo = await rt.dualControlFor(profileId);
      const current = (await repo.currentPolicy())?.version ?? 0;
      const policy = signPolicy(by, { profileId, version: current + 1, rules: checked, setAt: now() });
      await rt.auditSeal(profileId);
      await repo.addPolicy(policy);
      await rt.audit(profileId, { actor: personActor(admin), action: 'policy.changed', subject: String(policy.version), details: { version: policy.version, rules: checked, by: admin.name } });
      return policy;
    },
  };
}
