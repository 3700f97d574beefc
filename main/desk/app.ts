// app:* — app info, connection state, rate budget, the data folder, and the files a person hands
// the desk (main's open dialog, or a drop the preload resolved to a path).
import type { AppInfo } from '../../contract/api';
import type { DialogPort } from './dialogs';
import { FILE_EXTENSIONS, type FileGrants } from './file-grants';
import type { ProfileAreaService } from './profile-binding';
import type { DeskRuntime } from './runtime';
import { DeskError } from './services';

export interface AppEnvironment {
  name: string;
  version: string;
  platform: string;
  demoAvailable: boolean;
  /**
   * Opens a folder in the OS file manager (Electron's shell.openPath, which answers the OS's error
   * message, or '' when it worked); absent in tests and the harness.
   */
  openPath?: (path: string) => Promise<string>;
  /** Main's system dialogs; absent where no window exists (CLI, tests, the Playwright harness). */
  dialogs?: DialogPort;
  /** The tokens of files the user chose or dropped; one per desk, shared by every service that reads files. */
  files?: FileGrants;
}

const DIALOG_TITLES = { csv: 'Choose a payout CSV', key: 'Choose a private key file', ca: 'Choose the CA certificate of the team database' } as const;
const FILTER_NAMES = { csv: 'CSV files', key: 'PEM private keys', ca: 'PEM certificates' } as const;

export function appService(rt: DeskRuntime, env: AppEnvironment, files: FileGrants): ProfileAreaService<'app'> {
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
        // shell.openPath does not throw: it answers the OS's reason as text.
        const problem = await env.openPath(rt.ctx.home);
        if (problem) {
          rt.log.warn('could not open the data folder', { problem });
          throw new DeskError('OPEN_FAILED', `The data folder ${rt.ctx.home} could not be opened: ${problem}`);
        }
      }
      return { path: rt.ctx.home };
    },
    async chooseFile({ purpose }) {
      if (!env.dialogs) throw new DeskError('DIALOG_UNAVAILABLE', 'This desk cannot show a file dialog; drop the file on the window instead');
      const path = await env.dialogs.chooseOpenFile({
        title: DIALOG_TITLES[purpose],
        filters: [{ name: FILTER_NAMES[purpose], extensions: [...FILE_EXTENSIONS[purpose]] }],
      });
      if (path === null) return { chosen: false };
      return { chosen: true, file: await files.grant(path, purpose) };
    },
    async fileDropped({ purpose, path }) {
      return files.grant(path, purpose);
    },
  };
}
