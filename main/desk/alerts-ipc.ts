// people:alerts, muteAlert, alertDigest, setAlertDigest — the unlocked person's switches for the alerts they get at
// this desk, and their e-mail digest of them (main/desk/alert-digest.ts).
import { ALERT_KINDS, type AlertDigestView, type AlertKindView } from '../../contract/api';
import { isMailAddress } from '../profiles/profile-schema';
import { AlertMemory, type DigestState } from './alert-memory';
import { iso } from './convert';
import { DeskError } from './services';
import { ALERT_LABELS } from './alerts';
import { unlockedOrThrow } from './people';
import type { ProfileAreaService } from './profile-binding';
import type { DeskRuntime } from './runtime';

const digestView = (d: DigestState | null): AlertDigestView => ({
  email: d?.email ?? null,
  every: d?.every ?? 'daily',
  waiting: d?.waiting.length ?? 0,
  lastSentAt: d?.lastSentAt ? iso(d.lastSentAt) : null,
  lastError: d?.lastError ?? null,
});

export function alertSwitches(rt: DeskRuntime): Pick<ProfileAreaService<'people'>, 'alerts' | 'muteAlert' | 'alertDigest' | 'setAlertDigest'> {
  // Made at the first call: the data folder is the runtime's, which need not be open when the services are built.
  const memory = () => AlertMemory.inHome(rt.ctx.home);
  const views = (profileId: string, personId: string): AlertKindView[] => {
    const muted = new Set(memory().muted(profileId, personId));
    return ALERT_KINDS.map((kind) => ({ kind, label: ALERT_LABELS[kind], muted: muted.has(kind) }));
  };
  return {
    async alerts(profile) {
      return views(profile.id, unlockedOrThrow(rt, profile.id, 'see your alerts').personId);
    },
    async muteAlert(profile, { kind, muted }) {
      const { personId } = unlockedOrThrow(rt, profile.id, 'mute your alerts');
      memory().setMuted(profile.id, personId, kind, muted);
      await rt.audit(profile.id, { actor: `person:${personId}`, action: muted ? 'alerts.muted' : 'alerts.unmuted', subject: kind, details: {} });
      return views(profile.id, personId);
    },
    async alertDigest(profile) {
      return digestView(memory().digest(profile.id, unlockedOrThrow(rt, profile.id, 'see your alert digest').personId));
    },
    async setAlertDigest(profile, { email, every }) {
      const { personId } = unlockedOrThrow(rt, profile.id, 'set your alert digest');
      const address = email?.trim() ?? null;
      if (address !== null && !isMailAddress(address)) {
        throw new DeskError('INVALID_ARGUMENT', `"${address}" is not one e-mail address such as ada@example.com`, false, [{ field: 'email', code: 'INVALID_EMAIL', message: 'is not one e-mail address' }]);
      }
      const digest = memory().setDigest(profile.id, personId, address === null ? null : { email: address, every });
      await rt.audit(profile.id, { actor: `person:${personId}`, action: address === null ? 'alerts.digest-off' : 'alerts.digest-on', subject: personId, details: address === null ? {} : { to: address, every } });
      return digestView(digest);
    },
  };
}
