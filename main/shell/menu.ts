// The application menu. Menu items only *tell the renderer* what the user chose (menuCommand
// event); the renderer runs the same flow as its own buttons, so there is one code path per action.
import type { MenuItemConstructorOptions } from 'electron';
import type { MenuCommand } from '../../contract/api';

export interface MenuOptions {
  appName: string;
  platform: NodeJS.Platform;
  isPackaged: boolean;
  send(command: MenuCommand): void;
}

export function buildMenuTemplate(options: MenuOptions): MenuItemConstructorOptions[] {
  const { send } = options;
  const isMac = options.platform === 'darwin';
  const about: MenuItemConstructorOptions = { label: `About ${options.appName}`, click: () => send('about') };
  const file: MenuItemConstructorOptions = {
    label: 'File',
    submenu: [
      { label: 'Import CSV batch…', accelerator: 'CmdOrCtrl+O', click: () => send('import-csv') },
      { label: 'Export…', accelerator: 'CmdOrCtrl+E', click: () => send('export') },
      { type: 'separator' },
      { label: 'Open data folder', click: () => send('open-data-folder') },
      ...(isMac ? [] : ([{ type: 'separator' }, { role: 'quit' }] as MenuItemConstructorOptions[])),
    ],
  };
  const view: MenuItemConstructorOptions = {
    label: 'View',
    submenu: [
      { role: 'resetZoom' },
      { role: 'zoomIn' },
      { role: 'zoomOut' },
      { type: 'separator' },
      { role: 'togglefullscreen' },
      // Developer tools only in development builds.
      ...(options.isPackaged ? [] : ([{ type: 'separator' }, { role: 'reload' }, { role: 'toggleDevTools' }] as MenuItemConstructorOptions[])),
    ],
  };
  const template: MenuItemConstructorOptions[] = [
    ...(isMac
      ? ([{ label: options.appName, submenu: [about, { type: 'separator' }, { role: 'hide' }, { role: 'hideOthers' }, { role: 'unhide' }, { type: 'separator' }, { role: 'quit' }] }] as MenuItemConstructorOptions[])
      : []),
    file,
    { role: 'editMenu' },
    view,
    { role: 'windowMenu' },
    { role: 'help', submenu: isMac ? [] : [about] },
  ];
  return template;
}
