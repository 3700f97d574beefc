// settings:* of a profile; a change restarts its engine so the new values apply.
import type { ProfilePatch } from '../profiles/profile-schema';
import { settingsView } from './profile-views';
import type { ProfileAreaService } from './profile-binding';
import type { DeskRuntime } from './runtime';

export function settingsService(rt: DeskRuntime): ProfileAreaService<'settings'> {
  return {
    async get(profile) {
      return settingsView(profile, rt.callbackStatus(profile.id));
    },
    async update(profile, { callback, profileId: _chosen, ...rest }) {
      // profileId chose the profile (bindProfile); it is not a field to change.
      const patch: ProfilePatch = { ...rest };
      if (callback?.enabled !== undefined) patch.callbackEnabled = callback.enabled;
      if (callback?.host !== undefined) patch.callbackHost = callback.host;
      if (callback?.port !== undefined) patch.callbackPort = callback.port;
      if (callback?.url !== undefined) patch.callbackUrl = callback.url;
      const updated = rt.ctx.profiles.update(profile.id, patch);
      const wasStarted = rt.isStarted(profile.id);
      await rt.reset(profile.id);
      // The change is in the audit log (profile.updated, field by field) before the answer.
      await rt.ctx.trail.flush();
      // A running engine is started again at once, so a busy port or a bad address shows on the screen
      // that set it. One that was not running (the CLI, another profile) is left to start when used.
      if (wasStarted) await rt.engineFor(profile.id).catch(() => undefined);
      return settingsView(updated, rt.callbackStatus(profile.id));
    },
  };
}
