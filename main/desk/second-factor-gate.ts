// When a person's second factor is asked, in one place: before an approval is signed and before an admin signs
// a change of people, roles, policy or desks (dual-control.ts calls require() right after it checked the role;
// payee approvals go through the same decide path of the payee book's caller).
// It is asked when the person set one up at this desk, when the verified policy's secondFactor is on, and for
// approvals on LIVE under the built-in default policy (version 0: approvals only ever come above its band).
// A code typed at this desk covers the unlocked person's actions for 5 minutes, as sudo does; it is held on the
// unlocked session, so Lock, idle time or the OS locking forgets it with the key.
// What this is not: a claim inside the signed approval. The desk that signs also holds the secret that checks the
// code, so a signed "I checked a code" would prove nothing more than the signature already does; the gate at
// send time counts signatures (docs/threat-model.md, "Second factor").
import type { SecondFactorView } from '../../contract/api';
import type { ApprovalPolicy } from '../approvals/policy';
import type { UnlockedSession } from '../people/key-vault';
import { PeopleError } from '../people/roles';
import { SecondFactorError, SecondFactorVault, type CodeUse } from '../people/second-factor';
import { UnlockThrottle } from '../people/unlock-throttle';
import type { DeskRuntime } from './runtime';
import { DeskError } from './services';

/** How long one code covers the unlocked person's guarded actions. */
export const SECOND_FACTOR_COVERS_MS = 5 * 60_000;

export type GuardedAction = 'approve' | 'admin';

interface Who {
  id: string;
  name: string;
}

export class SecondFactorGate {
  readonly vault: SecondFactorVault;
  private readonly throttle: UnlockThrottle;

  constructor(
    private readonly rt: DeskRuntime,
    private readonly now: () => number = Date.now,
  ) {
    this.vault = new SecondFactorVault(rt.ctx.keyStore, now);
    this.throttle = new UnlockThrottle(rt.ctx.keyStore, now);
  }

  /** Whether the action asks this person for a code under this policy, and whether they have a second factor here. */
  async asks(profileId: string, person: Who, policy: ApprovalPolicy, action: GuardedAction): Promise<{ asked: boolean; enrolled: boolean }> {
    const enrolled = (await this.vault.status(person.id).catch(() => null))?.enrolled === true;
    return { asked: this.asked(profileId, enrolled, policy, action), enrolled };
  }

  /** The rule itself, once it is known whether the person set one up. */
  private asked(profileId: string, enrolled: boolean, policy: ApprovalPolicy, action: GuardedAction): boolean {
    if (enrolled || policy.rules.secondFactor === true) return true;
    const live = this.rt.ctx.profiles.get(profileId).environment === 'LIVE';
    return action === 'approve' && policy.version === 0 && live;
  }

  /**
   * Refuses the action unless the person's second factor, when asked, was shown in the last 5 minutes at this desk:
   * on the session that signs (`by`), or on the desk's unlocked session of the same person.
   */
  async require(profileId: string, person: Who, policy: ApprovalPolicy, action: GuardedAction, by: UnlockedSession | null): Promise<void> {
    const { asked, enrolled } = await this.asks(profileId, person, policy, action);
    if (!asked) return;
    const toDo = action === 'approve' ? 'approve' : 'sign admin changes';
    if (!enrolled) {
      throw new DeskError('SECOND_FACTOR_NOT_ENROLLED', `${person.name} needs a second factor to ${toDo} on this profile: set one up first (People › Second factor, or "people second-factor enrol")`);
    }
    if (!this.covered(by, person.id) && !this.covered(this.rt.peekSession(profileId), person.id)) {
      throw new DeskError('SECOND_FACTOR_REQUIRED', `Type the code your authenticator app shows (or a recovery code) to ${toDo}`);
    }
  }

  /** A code of the unlocked person: checked, used up, audited; the desk session is covered for 5 minutes. */
  async verify(profileId: string, session: UnlockedSession, person: Who, code: string): Promise<CodeUse> {
    const throttleId = `${person.id}:second-factor`;
    try {
      await this.throttle.check(throttleId, person.name, 'wrong second-factor codes');
      const used = await this.vault.use(person.id, code);
      await this.throttle.succeeded(throttleId);
      session.secondFactorAt = this.now();
      await this.rt.audit(profileId, { actor: `person:${person.id}`, action: 'person.second-factor-used', subject: person.id, details: { name: person.name, kind: used.kind, recoveryCodesLeft: used.recoveryCodesLeft } });
      return used;
    } catch (error) {
      if (error instanceof SecondFactorError || error instanceof PeopleError) {
        const failures = error.code === 'SECOND_FACTOR_WRONG' ? await this.throttle.failed(throttleId) : null;
        await this.rt.audit(profileId, { actor: `person:${person.id}`, action: 'person.second-factor-failed', subject: person.id, details: { name: person.name, code: error.code, ...(failures !== null ? { failures } : {}) } });
        throw new DeskError(error.code, error.message);
      }
      throw error;
    }
  }

  covered(session: UnlockedSession | null, personId: string): boolean {
    return session !== null && !session.locked && session.personId === personId && session.secondFactorAt !== null && this.now() - session.secondFactorAt <= SECOND_FACTOR_COVERS_MS;
  }

  /** The screen's view of the unlocked person's second factor. */
  async view(profileId: string, person: Who | null, policy: ApprovalPolicy): Promise<SecondFactorView> {
    if (!person) return { personId: null, enrolled: false, recoveryCodesLeft: null, onApprove: false, onAdmin: false, verifiedUntil: null };
    // One keychain read for the whole view.
    const status = await this.vault.status(person.id).catch(() => null);
    const enrolled = status?.enrolled === true;
    const session = this.rt.peekSession(profileId);
    const until = this.covered(session, person.id) && session?.secondFactorAt ? new Date(session.secondFactorAt + SECOND_FACTOR_COVERS_MS).toISOString() : null;
    return {
      personId: person.id, enrolled, recoveryCodesLeft: status?.recoveryCodesLeft ?? null,
      onApprove: this.asked(profileId, enrolled, policy, 'approve'), onAdmin: this.asked(profileId, enrolled, policy, 'admin'), verifiedUntil: until,
    };
  }
}
