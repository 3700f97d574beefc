// app:* — app info, connection state, rate budget and the data folder.
import type { AppInfo } from '../../preload/api';
import type { ProfileAreaService } from './profile-binding';
import type { DeskRuntime } from './runtime';

export interface AppEnvironment {
  name: string;
  version: string;
  platform: string;
  demoAvailable: boolean;
  /** Opens a folder in the OS file manager (Electron's shell.openPath); absent in tests and the harness. */
  openPath?: (path: string) => Promise<string>;
}

export function appService(rt: DeskRuntime, env: AppEnvironment): ProfileAreaService<'app'> {
  return {
    async info(): Promise<AppInfo> {
      return { name: env.name, version: env.version, platform: env.platform, dataFolder: rt.ctx.home, demoAvailable: env.demoAvailable };
    },
    async connectionState() {
      return rt.connection();
    },
    async rateBudget(profile) {
      if (!profile) return { inWindow: 0, limit: 0, queued: { token: 0, create: 0, status: 0, list: 0 }, pausedForMs: 0 };
      const usage = rt.ctx.limiterFor(profile).usage();
      return { inWindow: usage.inWindow, limit: usage.limit, queued: usage.queued, pausedForMs: usage.pausedForMs };
    },
    async openDataFolder() {
      if (env.openPath) {
        const problem = await env.openPath(rt.ctx.home);
        if (problem) rt.log.warn('could not open the data folder', { problem });
      }
      return { path: rt.ctx.home };
    },
  };
}
