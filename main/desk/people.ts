// people:* — the dual-control people of the active profile over IPC: who is unlocked at this desk, unlock
// and lock, add (the first person, without anyone unlocked), enrol at one's own desk, change roles, revoke,
// the control records (their root fingerprint, changes waiting for a second admin, sealing the people from
// before them). Main holds the unlocked key (runtime.setSession); the page learns only who is unlocked and
// until when. The passphrase crosses IPC on unlock, add and enrol, and is never returned, logged or audited.
import type { ControlInfo, ControlProposalInfo, DeskSessionView, PersonInfo, RoleName } from '../../contract/api';
import type { UnlockedSession } from '../people/key-vault';
import type { ControlView, DualControlService, PersonView, ProposalView } from './dual-control';
import type { ProfileAreaService } from './profile-binding';
import type { DeskRuntime } from './runtime';
import { DeskError } from './services';
import { secondFactorMethods } from './second-factor-ipc';
import { alertSwitches } from './alerts-ipc';

export const personInfo = (p: PersonView): PersonInfo => ({ ...p, roles: [...p.roles] as RoleName[] });

/** The unlocked person of the profile, or LOCKED with what to do. */
export function unlockedOrThrow(rt: DeskRuntime, profileId: string, toDo: string): UnlockedSession {
  const session = rt.sessionFor(profileId);
  if (!session) throw new DeskError('LOCKED', `Nobody is unlocked at this desk: unlock first to ${toDo}`);
  return session;
}

const proposalInfo = (p: ProposalView): ControlProposalInfo => ({ hash: p.hash, seq: p.seq, what: p.what, signedBy: [...p.signedBy], needs: p.needs });
export const controlInfo = (c: ControlView): ControlInfo => ({ ...c, proposals: c.proposals.map(proposalInfo) });
export { proposalInfo };

export async function sessionView(rt: DeskRuntime, dc: DualControlService, profileId: string): Promise<DeskSessionView> {
  const [people, policy, control] = await Promise.all([dc.listPeople(profileId), dc.policy(profileId), rt.controlFor(profileId)]);
  const session = rt.peekSession(profileId);
  const person = session ? people.find((p) => p.id === session.personId) : undefined;
  const locksAt = rt.sessionLocksAt(profileId);
  return {
    enforced: policy.enforced,
    hasPeople: people.length > 0,
    unlocked: session && person
      ? { personId: person.id, name: person.name, roles: [...person.roles] as RoleName[], unlockedAt: new Date(session.unlockedAt).toISOString(), locksAt: locksAt === null ? null : new Date(locksAt).toISOString() }
      : null,
    controlProblem: control.problem?.message ?? null,
  };
}

export function peopleService(rt: DeskRuntime, dc: DualControlService): ProfileAreaService<'people'> {
  const unlocked = (profileId: string, session: UnlockedSession, reason: 'unlock') => {
    rt.setSession(profileId, session);
    rt.events.emit('sessionChanged', { profileId, unlocked: true, reason });
    // What this person may approve differs from the last one's.
    rt.events.emit('approvalsChanged', { profileId, subject: null });
  };
  const changed = (profileId: string) => rt.events.emit('approvalsChanged', { profileId, subject: null });
  return {
    async list(profile) {
      return (await dc.listPeople(profile.id)).map(personInfo);
    },
    session: (profile) => sessionView(rt, dc, profile.id),
    async unlock(profile, { personId, passphrase }) {
      unlocked(profile.id, await dc.unlock(profile.id, personId, passphrase), 'unlock');
      return sessionView(rt, dc, profile.id);
    },
    async lock(profile) {
      await dc.lock(profile.id);
      return sessionView(rt, dc, profile.id);
    },
    async touch(profile) {
      rt.touchSession(profile.id);
      return sessionView(rt, dc, profile.id);
    },
    async add(profile, { name, passphrase }) {
      const { person, warning, session } = await dc.addPerson(profile.id, { name, passphrase });
      // The first person set up the desk a moment ago with this passphrase: they are at the desk.
      unlocked(profile.id, session, 'unlock');
      return { person: personInfo(person), warning };
    },
    async enroll(profile, { name, passphrase }) {
      const { session } = await dc.enroll(profile.id, { name, passphrase });
      // They typed their passphrase at this desk a moment ago: they are at the desk.
      unlocked(profile.id, session, 'unlock');
      return sessionView(rt, dc, profile.id);
    },
    async setRoles(profile, { personId, roles }) {
      const { person, proposal } = await dc.setRoles(profile.id, personId, roles, unlockedOrThrow(rt, profile.id, 'change roles (as an admin)'));
      changed(profile.id);
      return { person: personInfo(person), proposal: proposal ? proposalInfo(proposal) : null };
    },
    async revoke(profile, { personId, reason }) {
      const { person, approvalsVoided, proposal } = await dc.revokePerson(profile.id, personId, reason, unlockedOrThrow(rt, profile.id, 'revoke a person (as an admin)'));
      changed(profile.id);
      return { person: personInfo(person), approvalsVoided, proposal: proposal ? proposalInfo(proposal) : null };
    },
    async control(profile) {
      return controlInfo(await dc.control(profile.id));
    },
    async cosign(profile, { hash }) {
      await dc.cosign(profile.id, hash, unlockedOrThrow(rt, profile.id, 'sign a waiting change (as an admin)'));
      changed(profile.id);
      return controlInfo(await dc.control(profile.id));
    },
    async seal(profile) {
      const view = await dc.seal(profile.id, unlockedOrThrow(rt, profile.id, 'sign the people into the control records (as an admin)'));
      changed(profile.id);
      return controlInfo(view);
    },
    async confirmRoot(profile, { fingerprint }) {
      return controlInfo(await dc.confirmRoot(profile.id, fingerprint));
    },
    ...secondFactorMethods(rt, dc),
    ...alertSwitches(rt),
  };
}
