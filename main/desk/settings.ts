// settings:* of a profile; a change restarts its engine so the new values apply.
import type { ProfilePatch } from '../profiles/profile-schema';
import { settingsView } from './profile-views';
import type { ProfileAreaService } from './profile-binding';
import type { DeskRuntime } from './runtime';

export function settingsService(rt: DeskRuntime): ProfileAreaService<'settings'> {
  return {
    async get(profile) {
      return settingsView(profile);
    },
    async update(profile, { callback, ...rest }) {
      const patch: ProfilePatch = { ...rest };
      if (callback?.enabled !== undefined) patch.callbackEnabled = callback.enabled;
      if (callback?.host !== undefined) patch.callbackHost = callback.host;
      if (callback?.port !== undefined) patch.callbackPort = callback.port;
      if (callback?.url !== undefined) patch.callbackUrl = callback.url;
      const updated = rt.ctx.profiles.update(profile.id, patch);
      await rt.reset(profile.id);
      // The change is in the audit log (profile.updated, field by field) before the answer.
      await rt.ctx.trail.flush();
      return settingsView(updated);
    },
  };
}
