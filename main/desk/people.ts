// people:* — the dual-control people of the active profile over IPC: who is unlocked at this desk, unlock
// and lock, add (the first person without anyone unlocked), change roles, revoke. Main holds the unlocked
// key (runtime.setSession); the page learns only who is unlocked and until when. The passphrase crosses
// IPC on unlock and add, and is never returned, logged or audited.
import type { DeskSessionView, PersonInfo, RoleName } from '../../preload/api';
import type { UnlockedSession } from '../people/key-vault';
import type { DualControlService, PersonView } from './dual-control';
import type { ProfileAreaService } from './profile-binding';
import type { DeskRuntime } from './runtime';
import { DeskError } from './services';

export const personInfo = (p: PersonView): PersonInfo => ({ ...p, roles: [...p.roles] as RoleName[] });

/** The unlocked person of the profile, or LOCKED with what to do. */
export function unlockedOrThrow(rt: DeskRuntime, profileId: string, toDo: string): UnlockedSession {
  const session = rt.sessionFor(profileId);
  if (!session) throw new DeskError('LOCKED', `Nobody is unlocked at this desk: unlock first to ${toDo}`);
  return session;
}

export async function sessionView(rt: DeskRuntime, dc: DualControlService, profileId: string): Promise<DeskSessionView> {
  const [people, policy] = await Promise.all([dc.listPeople(profileId), dc.policy(profileId)]);
  const session = rt.peekSession(profileId);
  const person = session ? people.find((p) => p.id === session.personId) : undefined;
  const locksAt = rt.sessionLocksAt(profileId);
  return {
    enforced: policy.enforced,
    hasPeople: people.length > 0,
    unlocked: session && person
      ? { personId: person.id, name: person.name, roles: [...person.roles] as RoleName[], unlockedAt: new Date(session.unlockedAt).toISOString(), locksAt: locksAt === null ? null : new Date(locksAt).toISOString() }
      : null,
  };
}

export function peopleService(rt: DeskRuntime, dc: DualControlService): ProfileAreaService<'people'> {
  const unlockAs = async (profileId: string, personId: string, passphrase: string) => {
    rt.setSession(profileId, await dc.unlock(profileId, personId, passphrase));
    rt.events.emit('sessionChanged', { profileId, unlocked: true, reason: 'unlock' });
    // What this person may approve differs from the last one's.
    rt.events.emit('approvalsChanged', { profileId, subject: null });
  };
  return {
    async list(profile) {
      return (await dc.listPeople(profile.id)).map(personInfo);
    },
    session: (profile) => sessionView(rt, dc, profile.id),
    async unlock(profile, { personId, passphrase }) {
      await unlockAs(profile.id, personId, passphrase);
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
    async add(profile, { name, roles, passphrase }) {
      const first = (await dc.listPeople(profile.id)).length === 0;
      const by = first ? null : unlockedOrThrow(rt, profile.id, 'add a person (as an admin)');
      const { person, warning } = await dc.addPerson(profile.id, { name, roles, passphrase }, by);
      // The first person set up the desk a moment ago with this passphrase: they are at the desk.
      if (first) await unlockAs(profile.id, person.id, passphrase);
      return { person: personInfo(person), warning };
    },
    async enroll(profile, { name, passphrase }) {
      const { person } = await dc.enroll(profile.id, { name, passphrase });
      // They typed their passphrase at this desk a moment ago: they are at the desk.
      await unlockAs(profile.id, person.id, passphrase);
      return sessionView(rt, dc, profile.id);
    },
    async setRoles(profile, { personId, roles }) {
      const person = await dc.setRoles(profile.id, personId, roles, unlockedOrThrow(rt, profile.id, 'change roles (as an admin)'));
      rt.events.emit('approvalsChanged', { profileId: profile.id, subject: null });
      return personInfo(person);
    },
    async revoke(profile, { personId, reason }) {
      const { person, approvalsVoided } = await dc.revokePerson(profile.id, personId, reason, unlockedOrThrow(rt, profile.id, 'revoke a person (as an admin)'));
      rt.events.emit('approvalsChanged', { profileId: profile.id, subject: null });
      return { person: personInfo(person), approvalsVoided };
    },
  };
}
