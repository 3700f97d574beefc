// settings:* of a profile; a change restarts its engine so the new values apply.
import type { ProfilePatch } from '../profiles/profile-schema';
import { pick, settingsView } from './profile-views';
import type { DeskRuntime } from './runtime';
import type { AreaService } from './services';

export function settingsService(rt: DeskRuntime): AreaService<'settings'> {
  return {
    async get({ profileId }) {
      return settingsView(pick(rt, profileId));
    },
    async update({ profileId, callback, ...rest }) {
      const profile = pick(rt, profileId);
      const patch: ProfilePatch = { ...rest };
      if (callback?.enabled !== undefined) patch.callbackEnabled = callback.enabled;
      if (callback?.host !== undefined) patch.callbackHost = callback.host;
      if (callback?.port !== undefined) patch.callbackPort = callback.port;
      if (callback?.url !== undefined) patch.callbackUrl = callback.url;
      const updated = rt.ctx.profiles.update(profile.id, patch);
      await rt.reset(profile.id);
      return settingsView(updated);
    },
  };
}
