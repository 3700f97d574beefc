// Dual control as application services, shared by the CLI, the IPC handlers and the screens: people (the first
// one, enrolment at one's own desk, roles, revocation, unlock), approvals (list, show, approve, reject), the
// approval policy, and the control chain those rest on (main/trust/): every change of people, roles or policy
// is a record signed by the admins entitled to make it; one that needs a second admin waits as a proposal until
// they sign it too. Who acts is an UnlockedSession (a person who proved their passphrase); only the first
// person, who signs the chain's first record, and a person enrolling, who signs their own, act without one.
// Who may do what is read from the verified chain (rt.controlFor), never from a bare row.
// Every change is audited with the person who made it as actor.
// Rule: passphrases and private keys are never audited, logged or returned.
import { randomUUID } from 'node:crypto';
import type { ControlInfo, ControlProposalInfo } from '../../contract/api';
import { approvalSignatureValid, signApproval, type ApprovalRecord, type Decision } from '../approvals/approval';
import type { ApprovalExportRow } from '../csv/export';
import { yieldToEventLoop } from '../csv/time-slice';
import { manifestFromJournal, preparationProblem } from '../approvals/gate';
import { manifestDigest, manifestDigests, subjectText, type Manifest, type Subject } from '../approvals/manifest';
import { PREPARATION_VARIANT } from '../approvals/preparation';
import { checkRules, type ApprovalPolicy, type PolicyRules } from '../approvals/policy';
import { RepositoryError } from '../trust/repository';
import { verifyApprovals, type Verdict } from '../approvals/verify';
import { flagPayeeRows, type PayeeFlag } from '../payees/match';
import { PersonKeyVault, type UnlockedSession } from '../people/key-vault';
import { publicKeyFingerprint, type KdfParams } from '../people/person-key';
import { checkPersonInput, currentRoles, heldRoleAt, PeopleError, ROLES, type Person, type Role } from '../people/roles';
import { UnlockThrottle } from '../people/unlock-throttle';
import { draftRecord, recordText, signRecord, type ChainBody, type ChainRecord } from '../trust/chain-record';
import { activeAdminsAt, ChainRecordError, ChainReplay } from '../trust/chain-state';
import { ControlReader, type ControlState } from '../trust/control-state';
import { keepRejection, keptRejections, withKeptRejections } from '../approvals/kept-rejections';
import { SqliteDualControlRepository } from '../store/sqlite/dual-control';
import { Journal } from '../store/sqlite';
import type { DeskRuntime } from './runtime';
import { DeskError } from './services';
import { stillNeeded, stillNeededText, type StillNeeded } from './still-needed';
import { SubjectFactsCache, type SubjectFacts } from './subject-facts';
import { SecondFactorGate } from './second-factor-gate';

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
  /** Why its preparer's signature does not hold (nothing can be sent), or null. */
  preparation: string | null;
  verdict: Verdict;
  /** The approvals still missing and who can give them (still-needed.ts); null when none are missing. */
  stillNeeded: StillNeeded | null;
}

/** A control record one admin signed that waits for another admin's signature. */
/** A control record one admin signed that waits for another admin's signature; `current` false once the chain moved past it. */
export type ProposalView = ControlProposalInfo & { current: boolean };

/** The control chain as this desk sees it (the contract's ControlInfo), for the screens and `people control`. */
export type ControlView = Omit<ControlInfo, 'proposals'> & { proposals: ProposalView[] };

export const personActor = (p: { id: string }) => `person:${p.id}`;

const EVERY_ROLE: Role[] = [...ROLES];

/** The verified control state, refusing (CONTROL_BROKEN) when nothing may be done under it. */
async function trustedControl(rt: DeskRuntime, profileId: string): Promise<ControlState> {
  const state = await rt.controlFor(profileId);
  if (state.problem) throw new DeskError('CONTROL_BROKEN', state.problem.message);
  return state;
}

/**
 * Who prepares what is about to be journalled on this profile: the unlocked person at this desk. Once dual
 * control is on, preparing needs an unlocked, unrevoked person holding the preparer role in the verified
 * control chain; before that, nobody needs to be named (the desk works as it always did).
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

/**
 * Key custody and where the profile's records are (key export, import, rotation, retirement, the team
 * database, removing the profile): once dual control is on, an unlocked admin of the verified chain, who is
 * named in the audit entry. Undefined while dual control is off.
 */
export async function adminFor(rt: DeskRuntime, profileId: string, what: string, now = Date.now()): Promise<Person | undefined> {
  const state = await rt.controlFor(profileId);
  if (!state.enforced) return undefined;
  if (state.problem) throw new DeskError('CONTROL_BROKEN', `${state.problem.message}; ${what} needs an admin of dual control`);
  const session = rt.sessionFor(profileId);
  if (!session) throw new DeskError('LOCKED', `Dual control is on for this profile: ${what} needs an unlocked admin; unlock first`);
  const person = state.people.find((p) => p.id === session.personId && p.publicKey === session.publicKey);
  if (!person || person.revokedAt !== null || !heldRoleAt(person, 'admin', now)) throw new DeskError('NOT_ALLOWED', `${person?.name ?? 'This person'} is not an admin; ${what} needs one`);
  // Key custody and the profile's admin settings are admin changes too.
  await new SecondFactorGate(rt).require(profileId, person, state.policy, 'admin', session);
  return person;
}

/** The unlocked person at this desk holding `role` now (required once dual control is on); their id. */
async function workingPersonFor(rt: DeskRuntime, profileId: string, role: 'preparer' | 'sender', now: number): Promise<string | undefined> {
  const session = rt.sessionFor(profileId);
  const state = await rt.controlFor(profileId);
  if (!state.enforced) return session?.locked === false ? session.personId : undefined;
  if (state.problem) throw new DeskError('CONTROL_BROKEN', state.problem.message);
  if (!session || session.locked) throw new DeskError('LOCKED', `Dual control is on for this profile: unlock as a ${role} first; nothing was sent`);
  const person = state.people.find((p) => p.id === session.personId && p.publicKey === session.publicKey);
  if (!person || person.revokedAt !== null || !heldRoleAt(person, role, now)) {
    throw new DeskError('NOT_ALLOWED', `${person?.name ?? 'This person'} does not hold the ${role} role now; nothing was sent`);
  }
  return person.id;
}

/**
 * The control records in this desk's own journal (a team profile's mirrored copy), verified against this desk's
 * pin: who is an admin or a person here while the team database cannot be reached. Null for a single desk.
 */
export async function ownControlOf(rt: DeskRuntime, profileId: string): Promise<ControlState | null> {
  const own = await rt.ownLogFor(profileId);
  if (!own || !(own.journal instanceof Journal)) return null;
  const profile = rt.ctx.profiles.get(profileId);
  const reader = new ControlReader({
    repository: new SqliteDualControlRepository(own.journal), keyStore: rt.ctx.keyStore, profileId, environment: profile.environment,
    where: "this desk's own copy of the control records",
  });
  return reader.read();
}

/**
 * With dual control on: why a subject's rows in the journal are not what its preparer signed (a row edited there
 * since), or null when they are or dual control is off. What copies rows from the journal (a retry) asks first.
 */
export async function rowsNotAsPrepared(rt: DeskRuntime, profileId: string, subject: Subject): Promise<string | null> {
  const state = await rt.controlFor(profileId);
  if (!state.enforced) return null;
  if (state.problem) return state.problem.message;
  const manifest = await manifestFromJournal(await rt.journalFor(profileId), state.scope, subject, 0);
  if (!manifest) return null;
  return preparationProblem(manifest, await (await rt.dualControlFor(profileId)).preparationsFor(subject), state.people);
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
  const state = await rt.controlFor(profileId);
  const people = new Map(state.people.map((p) => [p.id, p]));
  const journal = await rt.journalFor(profileId);
  const digests = new Map<number, string | null>();
  for (const version of new Set(approvals.map((a) => a.policyVersion))) {
    const manifest = await manifestFromJournal(journal, state.scope, subject, version);
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

export interface ShowOptions {
  /**
   * Reuse the manifest's digests and payee flags worked out before when no write to the journal happened since
   * (subject-facts.ts): for the queue, opened again and again. Approvals are verified anew either way.
   */
  reuse?: boolean;
}

export interface DualControlService {
  /** When a person's second factor is asked, and their codes checked (second-factor-gate.ts). */
  readonly secondFactor: SecondFactorGate;
  listPeople(profileId: string): Promise<PersonView[]>;
  /** The control chain as this desk sees it: root fingerprint, whether it holds, proposals waiting. */
  control(profileId: string): Promise<ControlView>;
  /**
   * A person sets themselves up at their own desk: their key is made in this desk's keychain (it never exists
   * elsewhere), and they sign their enrolment with it; they hold the viewer role only, which lets them do nothing
   * but look, until an admin grants more, from any desk, after comparing the fingerprint with them. Refused
   * while nobody is set up (the first person is added, and gets every role).
   */
  enroll(profileId: string, input: { name: string; passphrase: string }): Promise<{ person: PersonView; session: UnlockedSession }>;
  /** The first person: every role; they sign the control chain's first record, its root. Later people enrol. */
  addPerson(profileId: string, input: { name: string; passphrase: string }): Promise<{ person: PersonView; warning: string | null; session: UnlockedSession }>;
  /** People and policy from before the control chain, signed into one by an admin among them (once). */
  seal(profileId: string, by: UnlockedSession): Promise<ControlView>;
  setRoles(profileId: string, personId: string, roles: readonly string[], by: UnlockedSession): Promise<{ person: PersonView; proposal: ProposalView | null }>;
  /** Revokes a person: they can no longer sign, and their approvals of anything not yet sent are void. */
  revokePerson(profileId: string, personId: string, reason: string, by: UnlockedSession): Promise<{ person: PersonView; approvalsVoided: number; proposal: ProposalView | null }>;
  /** A second admin signs a waiting record; it joins the chain once it has the signatures it needs. */
  cosign(profileId: string, hash: string, by: UnlockedSession): Promise<{ proposal: ProposalView; added: boolean }>;
  /** Registers a desk's key for the team's audit log (team-audit.ts): an admin vouches for that desk. */
  registerDesk(profileId: string, desk: { keyId: string; publicKey: string; deskName: string }, by: UnlockedSession): Promise<void>;
  /** A person compared the root fingerprint with the team's admin: this desk pins it as confirmed. */
  confirmRoot(profileId: string, fingerprint: string): Promise<ControlView>;
  unlock(profileId: string, personId: string, passphrase: string): Promise<UnlockedSession>;
  /** "Lock": the person working on this profile at this desk is forgotten now; false when nobody was unlocked. */
  lock(profileId: string): Promise<boolean>;
  listApprovals(profileId: string, limit?: number): Promise<ApprovalRecord[]>;
  show(profileId: string, subject: Subject, options?: ShowOptions): Promise<SubjectView>;
  /**
   * The subject's view from facts worked out before and still current (subject-facts.ts), nothing heavy done:
   * undefined when they are not known (never worked out, or a write to the journal since), null when the journal
   * has no such subject. Approvals are verified anew, as show does.
   */
  knownView(profileId: string, subject: Subject): Promise<SubjectView | null | undefined>;
  /** Forgets the reused facts of every subject but these (the queue's, once it is built). */
  keepFactsOf(profileId: string, subjects: readonly Subject[]): Promise<void>;
  /** Ids of single payouts held by the gate (not of a batch), read again only after a write to the journal. */
  heldPayoutIds(profileId: string): Promise<readonly string[]>;
  decide(profileId: string, subject: Subject, decision: Decision, reason: string | null, by: UnlockedSession): Promise<{ approval: ApprovalRecord; view: SubjectView }>;
  policy(profileId: string): Promise<{ policy: ApprovalPolicy; isDefault: boolean; enforced: boolean }>;
  setPolicy(profileId: string, rules: PolicyRules, by: UnlockedSession): Promise<{ policy: ApprovalPolicy; proposal: ProposalView | null }>;
}

/** One cache of subject facts per runtime: the IPC's service and the alerts' work on the same queue. */
const factsOfRuntime = new WeakMap<DeskRuntime, SubjectFactsCache>();

/** `facts`: a cache of its own (a service that has never seen the journal), else the runtime's. */
export function dualControlService(rt: DeskRuntime, options: { kdf?: KdfParams; now?: () => number; facts?: SubjectFactsCache } = {}): DualControlService {
  const now = options.now ?? Date.now;
  const vault = new PersonKeyVault(rt.ctx.keyStore, options);
  const throttle = new UnlockThrottle(rt.ctx.keyStore, now);
  const facts = options.facts ?? factsOfRuntime.get(rt) ?? new SubjectFactsCache();
  if (!options.facts) factsOfRuntime.set(rt, facts);
  const secondFactor = new SecondFactorGate(rt, now);

  const view = async (p: Person): Promise<PersonView> => ({
    id: p.id, name: p.name, roles: currentRoles(p), fingerprint: publicKeyFingerprint(p.publicKey), createdAt: new Date(p.createdAt).toISOString(),
    revokedAt: iso(p.revokedAt), revokeReason: p.revokeReason, keyOnThisMachine: await vault.has(p.id).catch(() => false),
  });

  const mustGet = (state: ControlState, personId: string): Person => {
    const person = state.people.find((p) => p.id === personId);
    if (!person) throw new DeskError('NOT_FOUND', `No person ${personId} on this profile`);
    return person;
  };

  /** The session's person, holding `role` now and not revoked, in the verified chain. */
  const acting = (state: ControlState, session: UnlockedSession, role: Role): Person => {
    if (session.locked) throw new DeskError('LOCKED', 'The desk is locked; unlock with your passphrase first');
    const person = state.people.find((p) => p.id === session.personId);
    if (!person || person.publicKey !== session.publicKey) throw new DeskError('NOT_ALLOWED', 'This session is not of a person of this profile');
    if (person.revokedAt !== null) throw new DeskError('NOT_ALLOWED', `${person.name} was revoked`);
    if (!heldRoleAt(person, role, now())) throw new DeskError('NOT_ALLOWED', `${person.name} does not hold the ${role} role`);
    return person;
  };

  /** The replay of the verified chain, to draft and check the next record on. */
  const replayOf = (state: ControlState): ChainReplay => {
    const replay = new ChainReplay();
    for (const r of state.records) replay.apply(r);
    return replay;
  };

  const nameIn = (state: ControlState) => (id: string) => state.people.find((p) => p.id === id)?.name ?? id;

  const proposalView = (state: ControlState, r: ChainRecord): ProposalView => {
    const replay = replayOf(state);
    const current = state.chain !== null && r.seq === state.chain.head.seq + 1 && r.prev === state.chain.head.hash;
    return { hash: r.hash, seq: r.seq, what: recordText(r.body, nameIn(state)), signedBy: r.signatures.map((s) => nameIn(state)(s.signerId)), needs: replay.signaturesNeeded(r.body, r.at), current };
  };

  /**
   * Drafts the next record, signs it as `by`, and adds it to the chain when one signature is enough, or
   * stores it as a proposal for a second admin. The record is checked against the chain first (a change the
   * chain would refuse is refused here with its reason).
   */
  const propose = async (profileId: string, state: ControlState, body: ChainBody, by: UnlockedSession): Promise<ProposalView | null> => {
    const replay = replayOf(state);
    const record = signRecord(draftRecord({ head: state.chain?.head ?? null, at: now(), body }), by);
    const needs = replay.signaturesNeeded(body, record.at);
    const repo = await rt.dualControlFor(profileId);
    if (needs <= 1) {
      checkRecord(replay, record);
      await append(repo, record);
      return null;
    }
    await repo.addProposal(record);
    return proposalView(state, record);
  };

  const checkRecord = (replay: ChainReplay, record: ChainRecord): void => {
    try {
      replay.apply(record);
    } catch (error) {
      if (error instanceof ChainRecordError) throw new DeskError('NOT_ALLOWED', error.problem.message.replace(/^control record \d+: /, 'Refused: '));
      throw error;
    }
  };

  const append = async (repo: Awaited<ReturnType<DeskRuntime['dualControlFor']>>, record: ChainRecord): Promise<void> => {
    try {
      await repo.appendChain(record);
    } catch (error) {
      if (error instanceof RepositoryError && error.code === 'CHAIN_MOVED') throw new DeskError('CHAIN_MOVED', error.message);
      throw error;
    }
  };

  const auditChange = (profileId: string, by: Person, action: string, subject: string, details: Record<string, unknown>) =>
    rt.audit(profileId, { actor: personActor(by), action, subject, details: { ...details, by: by.name } });

  /** The manifest, its digests and payee flags: what costs the most (subject-facts.ts). */
  const factsOf = async (profileId: string, s: ControlState, subject: Subject): Promise<SubjectFacts | undefined> => {
    const manifest = await manifestFromJournal(await rt.journalFor(profileId), s.scope, subject, s.policy.version);
    if (!manifest) return undefined;
    // Reading and building a 10,000-row manifest is one turn of the event loop, hashing it another (issue 25: no
    // stall over 50 ms when an approver opens it).
    await yieldToEventLoop();
    // Both digests in one pass over the rows, as the gate does.
    const [digest, preparedDigest] = manifestDigests(manifest, [{}, PREPARATION_VARIANT]) as [string, string];
    // The same count the gate passes (runtime.ts), so what an approver is shown is what the send is checked against.
    const payeeFlags = await flagPayeeRows(await rt.payeesFor(profileId), manifest.rows, { profileId, control: async () => s, audit: (entry) => rt.audit(profileId, entry) });
    return { manifest: { ...manifest, rows: [] }, rowCount: manifest.rows.length, digest, preparedDigest, payeeFlags };
  };

  const subjectView = async (profileId: string, subject: Subject, options: ShowOptions = {}): Promise<SubjectView> => {
    const s = await rt.controlFor(profileId);
    const found = options.reuse
      ? await facts.get(await rt.journalFor(profileId), s, subject, () => factsOf(profileId, s, subject))
      : await factsOf(profileId, s, subject);
    if (!found) throw new DeskError('NOT_FOUND', `No ${subjectText(subject)} in this profile's journal`);
    return viewOfFacts(profileId, s, subject, found);
  };

  const viewOfFacts = async (profileId: string, s: ControlState, subject: Subject, facts: SubjectFacts): Promise<SubjectView> => {
    const { manifest, payeeFlags } = facts;
    const repo = await rt.dualControlFor(profileId);
    // With this desk's kept rejections, as the gate reads them: a "no" deleted from the store still shows.
    const { approvals } = withKeptRejections(await repo.approvalsFor(subject), await keptRejections(rt.ctx.keyStore, profileId, subject));
    const verdict = verifyApprovals(manifest, approvals, s.people, s.policy, { now: now(), newOrChangedPayees: payeeFlags.length, digest: facts.digest });
    const preparation = s.enforced ? (s.problem?.message ?? preparationProblem(manifest, await repo.preparationsFor(subject), s.people, facts.preparedDigest)) : null;
    return {
      subject, manifestDigest: facts.digest, preparedBy: manifest.preparedBy, fileSha256: manifest.fileSha256, rows: facts.rowCount,
      totals: manifest.totals, policyVersion: manifest.policyVersion, enforced: s.enforced, payeeFlags, preparation, verdict,
      stillNeeded: s.enforced ? stillNeeded(verdict, s.people, manifest.preparedBy, now()) : null,
    };
  };

  /**
   * Why a decision by `who` would not count, as the verdict stands (the one the gate reads, with this desk's kept
   * rejections): an approval of someone whose approval counts already, or whose rejection stands; a rejection of
   * someone who rejected it already. Null when it would count. Refusing it keeps a useless signature out of the
   * records and tells the person who can still help instead.
   */
  const secondDecisionProblem = (view: SubjectView, who: Person, decision: Decision): string | null => {
    const mine = view.verdict.checks.filter((c) => c.signerId === who.id);
    const what = `this ${view.subject.kind}`;
    const rejected = mine.some((c) => c.status === 'REJECTED');
    if (rejected) {
      return decision === 'reject'
        ? `${who.name} rejected ${what} already; a rejection counts once`
        : `${who.name} rejected ${what}, and that rejection stands: an approval by them would not count (nothing is sent as it is)`;
    }
    if (decision === 'approve' && view.verdict.approvedBy.includes(who.id)) {
      const rest = view.stillNeeded ? `; it ${stillNeededText(view.stillNeeded)}` : '';
      return `${who.name} approved ${what} already and a second approval by the same person would not count${rest}`;
    }
    return null;
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

  const controlView = async (profileId: string): Promise<ControlView> => {
    const state = await rt.controlFor(profileId);
    const proposals = state.chain ? (await (await rt.dualControlFor(profileId)).proposals()).map((r) => proposalView(state, r)).filter((p) => p.current) : [];
    return {
      enforced: state.enforced, fingerprint: state.chain?.fingerprint ?? null, confirmed: state.pin?.confirmed === true, records: state.records.length,
      problem: state.problem, needsSeal: state.problem?.code === 'NOT_SEALED', secondAdmin: state.policy.rules.secondAdmin === true, proposals,
    };
  };

  return {
    secondFactor,

    async listPeople(profileId) {
      // Before the chain, the people from before it: they unlock to have an admin among them sign it (seal).
      const state = await rt.controlFor(profileId);
      return Promise.all((state.chain ? state.people : (state.legacy?.people ?? [])).map(view));
    },

    control: controlView,

    async addPerson(profileId, input) {
      const state = await rt.controlFor(profileId);
      if (state.problem?.code === 'NOT_SEALED') throw new DeskError('NOT_SEALED', state.problem.message);
      if (state.enforced) {
        throw new DeskError('NOT_ALLOWED', 'People enrol at their own desk (people enroll, or People › Enrol yourself), so their key never exists elsewhere; then an admin grants their roles');
      }
      const { name, roles } = checkPersonInput(input.name, EVERY_ROLE);
      const id = randomUUID();
      const session = await vault.createUnlocked(id, input.passphrase);
      const genesis = signRecord(draftRecord({ head: null, at: now(), body: { kind: 'genesis', scope: profileId, people: [{ id, name, publicKey: session.publicKey, roles }], policy: null } }), session);
      await rt.auditSeal(profileId);
      await append(await rt.dualControlFor(profileId), genesis);
      await (await rt.controlReaderFor(profileId)).madeHere(genesis);
      await rt.audit(profileId, { actor: personActor({ id }), action: 'person.added', subject: id, details: { name, roles, fingerprint: publicKeyFingerprint(session.publicKey), by: null, root: true } });
      const person = mustGet(await trustedControl(rt, profileId), id);
      return { person: await view(person), warning: `${name} holds every role: until someone else enrols and is granted approver, nobody checks their payouts`, session };
    },

    async seal(profileId, by) {
      const state = await rt.controlFor(profileId);
      if (state.chain) throw new DeskError('NOT_ALLOWED', 'The people are signed into the control records already');
      const legacy = state.legacy;
      if (!legacy) throw new DeskError('NOT_FOUND', 'There are no people from before the control records to sign');
      const at = now();
      const root = legacy.people.find((p) => p.id === by.personId && p.publicKey === by.publicKey && p.revokedAt === null && heldRoleAt(p, 'admin', at));
      if (!root || by.locked) throw new DeskError('NOT_ALLOWED', 'Only an unlocked admin among the people from before can sign them into the control records');
      const others = legacy.people.filter((p) => p.id !== root.id && p.revokedAt === null && currentRoles(p).length > 0);
      const newest = legacy.policies.at(-1);
      let policy: { version: number; rules: PolicyRules } | null = null;
      if (newest) {
        try {
          policy = { version: newest.version, rules: checkRules(newest.rules) };
        } catch (error) {
          throw new DeskError('INVALID_POLICY', `The newest policy from before cannot be signed: ${error instanceof Error ? error.message : String(error)}`);
        }
      }
      const people = [root, ...others].map((p) => ({ id: p.id, name: p.name, publicKey: p.publicKey, roles: currentRoles(p) }));
      const genesis = signRecord(draftRecord({ head: null, at, body: { kind: 'genesis', scope: profileId, people, policy } }), by);
      checkRecord(new ChainReplay(), genesis);
      await rt.auditSeal(profileId);
      await append(await rt.dualControlFor(profileId), genesis);
      await (await rt.controlReaderFor(profileId)).madeHere(genesis);
      await rt.audit(profileId, { actor: personActor(root), action: 'control.sealed', subject: genesis.hash, details: { people: people.map((p) => ({ name: p.name, roles: p.roles, fingerprint: publicKeyFingerprint(p.publicKey) })), policyVersion: policy?.version ?? null, by: root.name } });
      return controlView(profileId);
    },

    async enroll(profileId, input) {
      const state = await trustedControl(rt, profileId);
      if (!state.chain) throw new DeskError('NO_PEOPLE', 'Nobody is set up on this profile yet: add the first person (they get every role) instead of enrolling');
      const { name, roles } = checkPersonInput(input.name, ['viewer']);
      const id = randomUUID();
      const session = await vault.createUnlocked(id, input.passphrase);
      const body: ChainBody = { kind: 'enrolled', person: { id, name, publicKey: session.publicKey } };
      const repo = await rt.dualControlFor(profileId);
      await rt.auditSeal(profileId);
      // Another desk may add a record meanwhile: the enrolment is drafted again on the new head (twice at most).
      for (let attempt = 0; ; attempt++) {
        const current = attempt === 0 ? state : await trustedControl(rt, profileId);
        const record = signRecord(draftRecord({ head: current.chain?.head ?? null, at: now(), body }), session);
        try {
          await repo.appendChain(record);
          break;
        } catch (error) {
          if (!(error instanceof RepositoryError && error.code === 'CHAIN_MOVED') || attempt >= 2) throw error;
        }
      }
      await rt.audit(profileId, { actor: personActor({ id }), action: 'person.enrolled', subject: id, details: { name, roles, fingerprint: publicKeyFingerprint(session.publicKey) } });
      return { person: await view(mustGet(await trustedControl(rt, profileId), id)), session };
    },

    async setRoles(profileId, personId, roles, by) {
      const state = await trustedControl(rt, profileId);
      const admin = acting(state, by, 'admin');
      await secondFactor.require(profileId, admin, state.policy, 'admin', by);
      const person = mustGet(state, personId);
      const clean = checkPersonInput(person.name, roles).roles;
      if (!clean.includes('admin') && activeAdminsAt(state.people, now()).every((p) => p.id === personId)) {
        throw new DeskError('LAST_ADMIN', `${person.name} is the last admin; make someone else admin first`);
      }
      const before = currentRoles(person);
      const proposal = await propose(profileId, state, { kind: 'roles', personId, roles: clean }, by);
      await auditChange(profileId, admin, proposal ? 'person.roles-proposed' : 'person.roles-changed', personId, { name: person.name, from: before, to: clean, ...(proposal ? { proposal: proposal.hash } : {}) });
      return { person: await view(mustGet(await trustedControl(rt, profileId), personId)), proposal };
    },

    async revokePerson(profileId, personId, reason, by) {
      const state = await trustedControl(rt, profileId);
      const admin = acting(state, by, 'admin');
      await secondFactor.require(profileId, admin, state.policy, 'admin', by);
      const person = mustGet(state, personId);
      if (!reason.trim()) throw new DeskError('REASON_REQUIRED', 'Say why the person is revoked');
      if (activeAdminsAt(state.people, now()).every((p) => p.id === personId)) throw new DeskError('LAST_ADMIN', `${person.name} is the last admin and cannot be revoked`);
      const approvalsVoided = await pendingApprovalsBy(profileId, personId);
      const proposal = await propose(profileId, state, { kind: 'revoked', personId, reason: reason.trim() }, by);
      // Their approvals stay as history; verification refuses a revoked signer from now on.
      if (!proposal) await vault.remove(personId).catch(() => undefined);
      await auditChange(profileId, admin, proposal ? 'person.revoke-proposed' : 'person.revoked', personId, { name: person.name, reason: reason.trim(), approvalsVoided, ...(proposal ? { proposal: proposal.hash } : {}) });
      return { person: await view(mustGet(await trustedControl(rt, profileId), personId)), approvalsVoided, proposal };
    },

    async cosign(profileId, hash, by) {
      const state = await trustedControl(rt, profileId);
      const admin = acting(state, by, 'admin');
      await secondFactor.require(profileId, admin, state.policy, 'admin', by);
      const repo = await rt.dualControlFor(profileId);
      const found = (await repo.proposals()).find((r) => r.hash === hash);
      if (!found) throw new DeskError('NOT_FOUND', `No control change ${hash} waits for a signature`);
      const before = proposalView(state, found);
      if (!before.current) throw new DeskError('CHAIN_MOVED', 'Other control changes were made since this one was proposed: it must be proposed again');
      if (found.signatures.some((s) => s.signerId === admin.id)) {
        throw new DeskError('ALREADY_DECIDED', `${admin.name} signed this change already and a second signature by the same person would not count: another admin signs it`);
      }
      const signed = signRecord(found, by);
      const replay = replayOf(state);
      const complete = signed.signatures.length >= before.needs;
      if (complete) {
        checkRecord(replay, signed);
        await append(repo, signed);
        if (signed.body.kind === 'revoked') await vault.remove(signed.body.personId).catch(() => undefined);
      } else await repo.addProposal(signed);
      await auditChange(profileId, admin, complete ? 'control.cosigned' : 'control.signed', hash, { what: before.what, seq: signed.seq });
      return { proposal: proposalView(complete ? await rt.controlFor(profileId) : state, signed), added: complete };
    },

    async registerDesk(profileId, desk, by) {
      const state = await trustedControl(rt, profileId);
      const admin = acting(state, by, 'admin');
      await secondFactor.require(profileId, admin, state.policy, 'admin', by);
      if (state.chain?.desks.some((d) => d.keyId === desk.keyId)) return;
      await propose(profileId, state, { kind: 'desk', keyId: desk.keyId, publicKey: desk.publicKey, deskName: desk.deskName }, by);
      await auditChange(profileId, admin, 'desk.registered', desk.keyId, { deskName: desk.deskName });
    },

    async confirmRoot(profileId, fingerprint) {
      try {
        await (await rt.controlReaderFor(profileId)).confirm(fingerprint);
      } catch (error) {
        throw new DeskError('ROOT_MISMATCH', error instanceof Error ? error.message : String(error));
      }
      await rt.audit(profileId, { action: 'control.root-confirmed', subject: fingerprint, details: {} });
      return controlView(profileId);
    },

    async unlock(profileId, personId, passphrase) {
      // While a team database cannot be reached, this desk's own copy says who its people are (an admin must be
      // able to unlock to point the profile elsewhere).
      const state = await rt.controlFor(profileId).catch(async (error: unknown) => {
        const own = await ownControlOf(rt, profileId).catch(() => null);
        if (own && !own.problem && own.chain) return own;
        throw error;
      });
      // People from before the chain may unlock to seal it; otherwise only people of the verified chain.
      const person = state.people.find((p) => p.id === personId) ?? state.legacy?.people.find((p) => p.id === personId);
      if (!person) throw new DeskError('NOT_FOUND', `No person ${personId} on this profile`);
      try {
        await throttle.check(person.id, person.name);
        const session = await vault.unlock(person, passphrase);
        await throttle.succeeded(person.id);
        await rt.audit(profileId, { actor: personActor(person), action: 'person.unlocked', subject: personId, details: { name: person.name } });
        return session;
      } catch (error) {
        if (error instanceof PeopleError) {
          const failures = error.code === 'WRONG_PASSPHRASE' ? await throttle.failed(person.id) : null;
          await rt.audit(profileId, { actor: personActor(person), action: 'person.unlock-failed', subject: personId, details: { name: person.name, code: error.code, ...(failures !== null ? { failures } : {}) } });
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

    async knownView(profileId, subject) {
      const s = await rt.controlFor(profileId);
      const known = facts.peek(await rt.journalFor(profileId), s, subject);
      if (!known) return undefined;
      return known.facts ? viewOfFacts(profileId, s, subject, known.facts) : null;
    },

    async keepFactsOf(profileId, subjects) {
      facts.keepOnly(await rt.journalFor(profileId), subjects);
    },

    async heldPayoutIds(profileId) {
      const journal = await rt.journalFor(profileId);
      return facts.list(journal, 'held payouts', async () => {
        // On SQLite, through the (status, created_at) index: the history's filter walks every payout by kind (a
        // quarter of a second with 500,000 batch rows), the cost of the whole first open of the queue.
        if (journal instanceof Journal) {
          const rows = journal.db.prepare(`SELECT id FROM payments WHERE status = 'HELD' AND +kind = 'payout' AND batch_id IS NULL ORDER BY created_at, pk`).all() as { id: string }[];
          return rows.map((r) => r.id);
        }
        const ids: string[] = [];
        for await (const p of journal.iterateHistory({ kinds: ['payout'], statuses: ['HELD'] })) if (p.batchId === null) ids.push(p.id);
        return ids;
      });
    },

    async decide(profileId, subject, decision, reason, by) {
      const s = await trustedControl(rt, profileId);
      const approver = acting(s, by, 'approver');
      if (decision === 'approve') await secondFactor.require(profileId, approver, s.policy, 'approve', by);
      const manifest = await manifestFromJournal(await rt.journalFor(profileId), s.scope, subject, s.policy.version);
      if (!manifest) throw new DeskError('NOT_FOUND', `No ${subjectText(subject)} in this profile's journal`);
      if (manifest.preparedBy === approver.id) throw new DeskError('SELF_APPROVAL', `${approver.name} prepared this ${subject.kind} and cannot approve or reject their own work`);
      const repo = await rt.dualControlFor(profileId);
      // A second decision by the same person that would not count is refused, saying who can still help.
      const uncounted = secondDecisionProblem(await subjectView(profileId, subject), approver, decision);
      if (uncounted) throw new DeskError('ALREADY_DECIDED', uncounted);
      const already = (await repo.approvalsFor(subject)).find((a) => a.signerId === approver.id && a.decision === decision && a.policyVersion === s.policy.version && a.manifestDigest === manifestDigest(manifest));
      if (already) throw new DeskError('ALREADY_DECIDED', `${approver.name} ${decision === 'approve' ? 'approved' : 'rejected'} this ${subject.kind} already; a second pair of eyes is another person's`);
      let approval: ApprovalRecord;
      try {
        approval = signApproval(by, { id: randomUUID(), manifest, decision, reason, signedAt: now() });
      } catch (error) {
        if (error instanceof Error && 'code' in error) throw new DeskError(String((error as { code: string }).code), error.message);
        throw error;
      }
      await rt.auditSeal(profileId);
      await repo.addApproval(approval);
      // A "no" is also kept in this desk's keychain: deleting it from the journal or database does not undo it.
      if (decision === 'reject') await keepRejection(rt.ctx.keyStore, profileId, approval, now());
      await rt.audit(profileId, {
        actor: personActor(approver),
        action: decision === 'approve' ? 'approval.given' : 'approval.rejected',
        subject: subject.id,
        details: { kind: subject.kind, name: approver.name, manifestDigest: approval.manifestDigest, policyVersion: approval.policyVersion, reason: approval.reason },
      });
      return { approval, view: await subjectView(profileId, subject) };
    },

    async policy(profileId) {
      const s = await rt.controlFor(profileId);
      return { policy: s.policy, isDefault: s.policy.version === 0, enforced: s.enforced };
    },

    async setPolicy(profileId, rules, by) {
      const state = await trustedControl(rt, profileId);
      const admin = acting(state, by, 'admin');
      await secondFactor.require(profileId, admin, state.policy, 'admin', by);
      let checked: PolicyRules;
      try {
        checked = checkRules(rules);
      } catch (error) {
        throw new DeskError('INVALID_POLICY', error instanceof Error ? error.message : String(error));
      }
      const version = (state.policies.at(-1)?.version ?? 0) + 1;
      await rt.auditSeal(profileId);
      const proposal = await propose(profileId, state, { kind: 'policy', version, rules: checked }, by);
      await auditChange(profileId, admin, proposal ? 'policy.proposed' : 'policy.changed', String(version), { version, rules: checked, ...(proposal ? { proposal: proposal.hash } : {}) });
      const after = await rt.controlFor(profileId);
      return { policy: proposal ? after.policy : (after.policies.find((p) => p.version === version) ?? after.policy), proposal };
    },
  };
}
