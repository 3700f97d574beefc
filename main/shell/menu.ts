// The application menu. Menu items only *tell the renderer* what the user chose (menuCommand
// event); the renderer runs the same flow as its own buttons, so there is one code path per action.
// Items with a keyboard shortcut take label and accelerator from contract/shortcuts.ts, the table the
// page answers the same keys from and the Keyboard shortcuts dialog lists.
import type { MenuItemConstructorOptions } from 'electron';
import type { MenuCommand } from '../../contract/api';
import { SHORTCUTS, type ShortcutMenu } from '../../contract/shortcuts';

export interface MenuOptions {
  appName: string;
  platform: NodeJS.Platform;
  isPackaged: boolean;
  send(command: MenuCommand): void;
}

export function buildMenuTemplate(options: MenuOptions): MenuItemConstructorOptions[] {
  const { send } = options;
  const isMac = options.platform === 'darwin';
  /** The items of one menu from the shortcut table, in its order. */
  const shortcutItems = (menu: ShortcutMenu, which: (command: MenuCommand) => boolean = () => true): MenuItemConstructorOptions[] =>
    SHORTCUTS.filter((s) => s.menu === menu && which(s.command)).map((s) => ({ label: s.label, accelerator: s.accelerator, click: () => send(s.command) }));
  const separator: MenuItemConstructorOptions = { type: 'separator' };
  const about: MenuItemConstructorOptions = { label: `About ${options.appName}`, click: () => send('about') };
  const file: MenuItemConstructorOptions = {
    label: 'File',
    submenu: [
      // New payout…, Import CSV batch…, Export…; then Lock on its own.
      ...shortcutItems('file', (c) => c !== 'lock'),
      separator,
      ...shortcutItems('file', (c) => c === 'lock'),
      separator,
      { label: 'Open data folder', click: () => send('open-data-folder') },
      ...(isMac ? [] : ([separator, { role: 'quit' }] as MenuItemConstructorOptions[])),
    ],
  };
  const view: MenuItemConstructorOptions = {
    label: 'View',
    submenu: [
      ...shortcutItems('view'),
      separator,
      { role: 'resetZoom' },
      { role: 'zoomIn' },
      { role: 'zoomOut' },
      separator,
      { role: 'togglefullscreen' },
      // Developer tools only in development builds.
      ...(options.isPackaged ? [] : ([separator, { role: 'reload' }, { role: 'toggleDevTools' }] as MenuItemConstructorOptions[])),
    ],
  };
  // The screens, then Find in History….
  const go: MenuItemConstructorOptions = {
    label: 'Go',
    submenu: [...shortcutItems('go', (c) => c !== 'find-history'), separator, ...shortcutItems('go', (c) => c === 'find-history')],
  };
  const help: MenuItemConstructorOptions = { role: 'help', submenu: [...shortcutItems('help'), ...(isMac ? [] : [separator, about])] };
  const template: MenuItemConstructorOptions[] = [
    ...(isMac
      ? ([{ label: options.appName, submenu: [about, separator, { role: 'hide' }, { role: 'hideOthers' }, { role: 'unhide' }, separator, { role: 'quit' }] }] as MenuItemConstructorOptions[])
      : []),
    file,
    { role: 'editMenu' },
    view,
    go,
    { role: 'windowMenu' },
    help,
  ];
  return template;
}
