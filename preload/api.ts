// The IPC contract between the renderer and main. Filled in by the shell issue; one file, types only.
export const APP_INFO_CHANNEL = 'app:info' as const;

export interface AppInfo {
  name: string;
  version: string;
}
