// settings:* of a profile; a change restarts its engine so the new values apply.
import type { ProfilePatch } from '../profiles/profile-schema';
import { settingsView } from './profile-views';
import type { ProfileAreaService } from './profile-binding';
import type { DeskRuntime } from './runtime';

export function settingsService(rt: DeskRuntime): ProfileAreaService<'settings'> {
  return {
    async get(profile) {
      return settingsView(profile, await listenerStatus(rt, profile.id));
    },
    async update(profile, { callback, ...rest }) {
      const patch: ProfilePatch = { ...rest };
      if (callback?.enabled !== undefined) patch.callbackEnabled = callback.enabled;
      if (callback?.host !== undefined) patch.callbackHost = callback.host;
      if (callback?.port !== undefined) patch.callbackPort = callback.port;
      if (callback?.url !== undefined) patch.callbackUrl = callback.url;
      const updated = rt.ctx.profiles.update(profile.id, patch);
      await rt.reset(profile.id);
      // Started again at once, so a busy port or a bad address shows on the screen that set it.
      return settingsView(updated, await listenerStatus(rt, profile.id));
    },
  };
}

/** The listener of the profile's engine, started if need be (a failed start is shown as the reason). */
async function listenerStatus(rt: DeskRuntime, profileId: string) {
  await rt.engineFor(profileId).catch(() => undefined);
  return rt.callbackStatus(profileId);
}
