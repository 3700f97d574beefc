// people:*SecondFactor — the unlocked person sets up, uses and removes their second factor at their own desk.
// The secret crosses IPC once, at the start of set-up (to be scanned), and the recovery codes once, when it is
// confirmed; neither is logged or audited. Codes cross on every check and are never returned.
import type { SecondFactorView } from '../../contract/api';
import type { UnlockedSession } from '../people/key-vault';
import type { DualControlService, PersonView } from './dual-control';
import { unlockedOrThrow } from './people';
import type { ProfileAreaService } from './profile-binding';
import type { DeskRuntime } from './runtime';
import { DeskError } from './services';

type SecondFactorMethods = Pick<ProfileAreaService<'people'>, 'secondFactor' | 'beginSecondFactor' | 'confirmSecondFactor' | 'verifySecondFactor' | 'removeSecondFactor'>;

/** A code sent with an approval: checked on the desk's session of the person before they sign. */
export async function verifyCode(rt: DeskRuntime, dc: DualControlService, profileId: string, session: UnlockedSession, code: string): Promise<void> {
  const person = (await dc.listPeople(profileId)).find((p) => p.id === session.personId);
  if (!person) throw new DeskError('NOT_ALLOWED', 'This session is not of a person of this profile');
  await dc.secondFactor.verify(profileId, session, person, code);
}

export function secondFactorMethods(rt: DeskRuntime, dc: DualControlService): SecondFactorMethods {
  const gate = dc.secondFactor;
  const who = async (profileId: string, toDo: string): Promise<{ session: UnlockedSession; person: PersonView }> => {
    const session = unlockedOrThrow(rt, profileId, toDo);
    const person = (await dc.listPeople(profileId)).find((p) => p.id === session.personId);
    if (!person) throw new DeskError('NOT_ALLOWED', 'This session is not of a person of this profile');
    return { session, person };
  };
  const view = async (profileId: string): Promise<SecondFactorView> => {
    const session = rt.peekSession(profileId);
    const person = session ? ((await dc.listPeople(profileId)).find((p) => p.id === session.personId) ?? null) : null;
    return gate.view(profileId, person, (await dc.policy(profileId)).policy);
  };
  const audit = (profileId: string, person: PersonView, action: string) =>
    rt.audit(profileId, { actor: `person:${person.id}`, action, subject: person.id, details: { name: person.name } });

  return {
    secondFactor: (profile) => view(profile.id),

    async beginSecondFactor(profile) {
      const { person } = await who(profile.id, 'set up your second factor');
      const start = await gate.vault.begin(person.id, `${person.name} (${profile.name})`);
      // Loaded here: the QR encoder is needed by this one action.
      const { toDataURL } = await import('qrcode');
      const qrDataUrl = await toDataURL(start.uri, { errorCorrectionLevel: 'M', margin: 2, width: 240 });
      return { uri: start.uri, secret: start.secret, qrDataUrl, expiresAt: new Date(start.expiresAt).toISOString() };
    },

    async confirmSecondFactor(profile, { code }) {
      const { session, person } = await who(profile.id, 'set up your second factor');
      let recoveryCodes: string[];
      try {
        ({ recoveryCodes } = await gate.vault.confirm(person.id, code));
      } catch (error) {
        if (error instanceof Error && 'code' in error) throw new DeskError(String((error as { code: unknown }).code), error.message);
        throw error;
      }
      // They typed a code a moment ago: it covers the next five minutes as any other code would.
      session.secondFactorAt = Date.now();
      await audit(profile.id, person, 'person.second-factor-enrolled');
      return { view: await view(profile.id), recoveryCodes };
    },

    async verifySecondFactor(profile, { code }) {
      const { session, person } = await who(profile.id, 'type a code of your second factor');
      await gate.verify(profile.id, session, person, code);
      return view(profile.id);
    },

    async removeSecondFactor(profile, { code }) {
      const { session, person } = await who(profile.id, 'remove your second factor');
      const { policy } = await dc.policy(profile.id);
      if (policy.rules.secondFactor === true) {
        throw new DeskError('NOT_ALLOWED', `The approval policy (version ${policy.version}) requires a second factor of everyone who approves or administers: it cannot be removed while that holds`);
      }
      await gate.verify(profile.id, session, person, code);
      await gate.vault.remove(person.id);
      await audit(profile.id, person, 'person.second-factor-removed');
      return view(profile.id);
    },
  };
}
