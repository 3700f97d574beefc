// The application menu: each item of ours only tells the renderer what the user chose (a MenuCommand),
// the platform decides where About and Quit live, and developer tools exist only in development. Its
// accelerators are the shortcut table's (contract/shortcuts.ts), the same keys the page answers.
import type { MenuItemConstructorOptions } from 'electron';
import { describe, expect, it } from 'vitest';
import { MENU_COMMANDS, type MenuCommand } from '../../../contract/api';
import { SHORTCUTS } from '../../../contract/shortcuts';
import { buildMenuTemplate } from '../../../main/shell/menu';

type Item = MenuItemConstructorOptions;

function build(platform: NodeJS.Platform, isPackaged = true) {
  const sent: MenuCommand[] = [];
  const template = buildMenuTemplate({ appName: 'Payout Desk', platform, isPackaged, send: (command) => void sent.push(command) });
  return { template, sent };
}

function submenuOf(item: Item | undefined): Item[] {
  if (!item) throw new Error('menu not found');
  if (!Array.isArray(item.submenu)) throw new Error(`menu ${item.label ?? item.role ?? '?'} has no submenu list`);
  return item.submenu;
}

const topLevel = (template: Item[], name: string): Item | undefined => template.find((i) => i.label === name || i.role === name);
const itemLabelled = (items: Item[], label: string): Item | undefined => items.find((i) => i.label === label);
/** Every item of the whole template, depth first. */
const flatten = (items: Item[]): Item[] => items.flatMap((i) => [i, ...(Array.isArray(i.submenu) ? flatten(i.submenu) : [])]);
/** Electron calls click(menuItem, browserWindow, event); our items ignore the arguments. */
const click = (item: Item | undefined): void => {
  if (!item?.click) throw new Error(`${item?.label ?? 'item'} has no click handler`);
  (item.click as (...args: unknown[]) => void)({}, undefined, {});
};

describe.each(['darwin', 'win32', 'linux'] as const)('the menu on %s', (platform) => {
  it('has File with Import CSV batch… (CmdOrCtrl+O), Export… (CmdOrCtrl+E) and Open data folder, each sending its command', () => {
    const { template, sent } = build(platform);
    const file = submenuOf(topLevel(template, 'File'));
    const importItem = itemLabelled(file, 'Import CSV batch…');
    const exportItem = itemLabelled(file, 'Export…');
    const dataFolder = itemLabelled(file, 'Open data folder');
    expect(importItem?.accelerator).toBe('CmdOrCtrl+O');
    expect(exportItem?.accelerator).toBe('CmdOrCtrl+E');
    expect(file.indexOf(importItem as Item)).toBeLessThan(file.indexOf(exportItem as Item));
    click(importItem);
    expect(sent).toEqual(['import-csv']);
    click(exportItem);
    expect(sent).toEqual(['import-csv', 'export']);
    click(dataFolder);
    expect(sent).toEqual(['import-csv', 'export', 'open-data-folder']);
  });

  it('has exactly one About item, and it sends about', () => {
    const { template, sent } = build(platform);
    const abouts = flatten(template).filter((i) => i.label === 'About Payout Desk');
    expect(abouts).toHaveLength(1);
    click(abouts[0]);
    expect(sent).toEqual(['about']);
  });

  it('sends every menu command of the contract from some item, and nothing outside it', () => {
    const { template, sent } = build(platform);
    for (const item of flatten(template)) if (item.click) click(item);
    expect([...sent].sort()).toEqual([...MENU_COMMANDS].sort());
  });

  it('puts nothing on a click of its own: every other item is an Electron role or a separator', () => {
    const { template } = build(platform, false);
    const ours = new Set([...SHORTCUTS.map((s) => s.label), 'Open data folder', 'About Payout Desk']);
    for (const item of flatten(template)) {
      if (item.click) expect(ours.has(item.label ?? ''), item.label).toBe(true);
      else expect(item.role !== undefined || item.type === 'separator' || Array.isArray(item.submenu), JSON.stringify(item)).toBe(true);
    }
  });

  it('offers reload and developer tools only when not packaged', () => {
    const roles = (isPackaged: boolean) => flatten(build(platform, isPackaged).template).map((i) => i.role).filter(Boolean);
    expect(roles(true)).not.toContain('toggleDevTools');
    expect(roles(true)).not.toContain('reload');
    expect(roles(true)).not.toContain('forceReload');
    expect(roles(false)).toContain('toggleDevTools');
    expect(roles(false)).toContain('reload');
    // Developer tools sit in View, not at the top level.
    expect(submenuOf(topLevel(build(platform, false).template, 'View')).map((i) => i.role)).toContain('toggleDevTools');
  });

  it('has every shortcut of the table on its item, in its menu, sending its command', () => {
    const { template, sent } = build(platform);
    const menus = { file: 'File', go: 'Go', view: 'View', help: 'help' } as const;
    for (const shortcut of SHORTCUTS) {
      const item = itemLabelled(submenuOf(topLevel(template, menus[shortcut.menu])), shortcut.label);
      expect(item?.accelerator, shortcut.label).toBe(shortcut.accelerator);
      sent.length = 0;
      click(item);
      expect(sent).toEqual([shortcut.command]);
    }
    // Only the table's items carry accelerators of ours: a key added to the menu alone would not work in the page.
    const accelerated = flatten(template).filter((i) => i.accelerator !== undefined);
    expect(accelerated.map((i) => i.label).sort()).toEqual(SHORTCUTS.map((s) => s.label).sort());
  });

  it('has Go with the screens in the drawer order, then Find in History…', () => {
    const go = submenuOf(topLevel(build(platform).template, 'Go'));
    expect(go.map((i) => i.label ?? i.type)).toEqual(['Overview', 'Balances', 'New payout', 'Batches', 'Approvals', 'Payees', 'History', 'Payins', 'People', 'Settings', 'separator', 'Find in History…']);
    expect(go.map((i) => i.accelerator).filter(Boolean)).toEqual([
      'CmdOrCtrl+1', 'CmdOrCtrl+2', 'CmdOrCtrl+3', 'CmdOrCtrl+4', 'CmdOrCtrl+5', 'CmdOrCtrl+6', 'CmdOrCtrl+7', 'CmdOrCtrl+8', 'CmdOrCtrl+9', 'CmdOrCtrl+,', 'CmdOrCtrl+F',
    ]);
  });

  it('has File with New payout…, Import, Export, then Lock (CmdOrCtrl+L); View with Refresh (F5), not CmdOrCtrl+R (the reload of development builds)', () => {
    const { template } = build(platform, false);
    const file = submenuOf(topLevel(template, 'File'));
    expect(file.slice(0, 5).map((i) => i.label ?? i.type)).toEqual(['New payout…', 'Import CSV batch…', 'Export…', 'separator', 'Lock']);
    expect(itemLabelled(file, 'New payout…')?.accelerator).toBe('CmdOrCtrl+N');
    expect(itemLabelled(file, 'Lock')?.accelerator).toBe('CmdOrCtrl+L');
    const view = submenuOf(topLevel(template, 'View'));
    expect(view[0]).toMatchObject({ label: 'Refresh', accelerator: 'F5' });
    expect(flatten(template).filter((i) => i.accelerator === 'CmdOrCtrl+R')).toHaveLength(0);
  });

  it('has Help › Keyboard shortcuts (CmdOrCtrl+/) first', () => {
    const help = submenuOf(topLevel(build(platform).template, 'help'));
    expect(help[0]).toMatchObject({ label: 'Keyboard shortcuts', accelerator: 'CmdOrCtrl+/' });
  });

  it('has the standard Edit and Window menus (copy/paste and window shortcuts keep working)', () => {
    const { template } = build(platform);
    expect(template.map((i) => i.role)).toEqual(expect.arrayContaining(['editMenu', 'windowMenu', 'help']));
  });
});

describe('macOS', () => {
  it('leads with the app menu: About first, then Hide…, and Quit at the end', () => {
    const { template } = build('darwin');
    const appMenu = template[0];
    expect(appMenu?.label).toBe('Payout Desk');
    const items = submenuOf(appMenu);
    expect(items[0]?.label).toBe('About Payout Desk');
    expect(items.map((i) => i.role)).toEqual(expect.arrayContaining(['hide', 'hideOthers', 'unhide']));
    expect(items.at(-1)?.role).toBe('quit');
  });

  it('has no Quit in File and no About in Help (both live in the app menu)', () => {
    const { template } = build('darwin');
    expect(submenuOf(topLevel(template, 'File')).map((i) => i.role)).not.toContain('quit');
    expect(flatten(template).filter((i) => i.role === 'quit')).toHaveLength(1);
    const help = submenuOf(topLevel(template, 'help'));
    expect(help.some((i) => i.label === 'About Payout Desk')).toBe(false);
    expect(help.map((i) => i.label)).toEqual(['Keyboard shortcuts']);
  });
});

describe.each(['win32', 'linux'] as const)('%s', (platform) => {
  it('has no app menu: File comes first and ends with Quit', () => {
    const { template } = build(platform);
    expect(template[0]?.label).toBe('File');
    expect(template.some((i) => i.label === 'Payout Desk')).toBe(false);
    const file = submenuOf(topLevel(template, 'File'));
    expect(file.at(-1)?.role).toBe('quit');
    expect(flatten(template).filter((i) => i.role === 'quit')).toHaveLength(1);
  });

  it('puts About in Help, after Keyboard shortcuts', () => {
    const { template, sent } = build(platform);
    const help = submenuOf(topLevel(template, 'help'));
    expect(help.map((i) => i.label ?? i.type)).toEqual(['Keyboard shortcuts', 'separator', 'About Payout Desk']);
    click(itemLabelled(help, 'About Payout Desk'));
    expect(sent).toEqual(['about']);
  });
});
