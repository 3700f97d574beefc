// profiles:* over the profile store: list, create, switch, update, remove and test the connection.
import type { ProfileAreaService } from './profile-binding';
import type { DeskRuntime } from './runtime';
import type { Profile } from '../profiles/profile-schema';
import { toJson } from './convert';
import type { DemoController } from './demo-controller';
import { profileView } from './profile-views';
import { DeskError } from './services';

async function activate(rt: DeskRuntime, profile: Profile): Promise<void> {
  rt.ctx.profiles.setCurrent(profile.id);
  rt.setConnection(profile.id, { status: 'unknown', lastError: null });
}

export function profilesService(rt: DeskRuntime, demo: DemoController | null): ProfileAreaService<'profiles'> {
  const { profiles } = rt.ctx;
  return {
    async list() {
      return { profiles: await Promise.all(profiles.list().map((p) => profileView(rt, p))), activeProfileId: profiles.currentId() };
    },
    async create(args) {
      const profile = profiles.add({ ...args, isDemo: false });
      if (!profiles.currentId()) await activate(rt, profile);
      // The profile store reported the change; answer once it is in the audit log.
      await rt.ctx.trail.flush();
      return profileView(rt, profile);
    },
    async createDemo() {
      if (!demo) throw new DeskError('NOT_AVAILABLE', 'Demo mode is not available in this build');
      const profile = await demo.createDemoProfile();
      await activate(rt, profile);
      await rt.ctx.trail.flush();
      return profileView(rt, profile);
    },
    async use({ profileId }) {
      const profile = profiles.get(profileId);
      await activate(rt, profile);
      return profileView(rt, profile);
    },
    async update({ profileId, ...patch }) {
      const profile = profiles.update(profileId, patch);
      await rt.reset(profileId);
      await rt.ctx.trail.flush();
      return profileView(rt, profile);
    },
    async remove({ profileId }) {
      await rt.reset(profileId);
      profiles.remove(profileId);
      await rt.ctx.trail.flush();
      return { removed: true };
    },
    async testConnection(profile) {
      const client = rt.ctx.gatewayFor(profile.id);
      rt.setConnection(profile.id, { status: 'connecting' });
      try {
        const info = await client.merchantInfo();
        const claims = await client.decodedTokenClaims();
        rt.setConnection(profile.id, { status: 'online', channelName: info.channelName, lastError: null });
        const json = toJson(claims);
        const tokenClaims = json && typeof json === 'object' && !Array.isArray(json) ? json : {};
        return { channelName: info.channelName, environment: profile.environment, tokenClaims, checkedAt: new Date().toISOString() };
      } catch (error) {
        const e = error as { code?: unknown; message?: unknown };
        rt.setConnection(profile.id, { status: 'offline', lastError: { code: typeof e.code === 'string' ? e.code : 'ERROR', message: String(e.message ?? error) } });
        throw error;
      }
    },
  };
}
