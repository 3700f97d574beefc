// people:alerts and people:muteAlert — the unlocked person's switches for the alerts they get at this desk.
import { ALERT_KINDS, type AlertKindView } from '../../contract/api';
import { AlertMemory } from './alert-memory';
import { ALERT_LABELS } from './alerts';
import { unlockedOrThrow } from './people';
import type { ProfileAreaService } from './profile-binding';
import type { DeskRuntime } from './runtime';

export function alertSwitches(rt: DeskRuntime): Pick<ProfileAreaService<'people'>, 'alerts' | 'muteAlert'> {
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
  };
}
