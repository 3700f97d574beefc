// The one table of keyboard shortcuts (contract/shortcuts.ts): the menu shows them as accelerators, the page
// answers the same keys (decideKey), the dialog writes them for the platform.
import { describe, expect, it } from 'vitest';
import { MENU_COMMANDS, type MenuCommand } from '../../../contract/api';
import { acceleratorText, decideKey, parseAccelerator, pressMatches, SHORTCUTS, shortcutOf, type KeyContext, type KeyPress } from '../../../contract/shortcuts';

const press = (key: string, mods: Partial<Omit<KeyPress, 'key'>> = {}): KeyPress => ({ key, ctrlKey: false, metaKey: false, altKey: false, shiftKey: false, ...mods });
const ctrl = (key: string, mods: Partial<Omit<KeyPress, 'key'>> = {}) => press(key, { ctrlKey: true, ...mods });
const cmd = (key: string, mods: Partial<Omit<KeyPress, 'key'>> = {}) => press(key, { metaKey: true, ...mods });
const page: KeyContext = { mac: false, inTextField: false, dialogOpen: false, repeat: false };
const mac: KeyContext = { ...page, mac: true };

describe('the table', () => {
  it('has one shortcut per command, each accelerator once, each readable by the page', () => {
    expect(new Set(SHORTCUTS.map((s) => s.command)).size).toBe(SHORTCUTS.length);
    expect(new Set(SHORTCUTS.map((s) => s.accelerator)).size).toBe(SHORTCUTS.length);
    for (const s of SHORTCUTS) {
      expect(() => parseAccelerator(s.accelerator), s.accelerator).not.toThrow();
      expect(MENU_COMMANDS as readonly string[]).toContain(s.command);
      expect(s.label.trim()).not.toBe('');
      expect(s.description.trim()).not.toBe('');
    }
  });

  it('gives every command a shortcut except Open data folder and About', () => {
    const without = MENU_COMMANDS.filter((c) => !shortcutOf(c));
    expect(without.sort()).toEqual(['about', 'open-data-folder']);
  });

  it('takes none of the keys of Electron’s own menu roles (edit, zoom, window, reload and developer tools)', () => {
    const roles = ['CmdOrCtrl+Z', 'Shift+CmdOrCtrl+Z', 'CmdOrCtrl+Y', 'CmdOrCtrl+X', 'CmdOrCtrl+C', 'CmdOrCtrl+V', 'CmdOrCtrl+A', 'CmdOrCtrl+0', 'CmdOrCtrl+=', 'CmdOrCtrl+-', 'CmdOrCtrl+M', 'CmdOrCtrl+W', 'CmdOrCtrl+Q', 'CmdOrCtrl+H', 'CmdOrCtrl+R', 'F11'];
    const taken = (a: string) => JSON.stringify(parseAccelerator(a));
    const ours = new Set(SHORTCUTS.map((s) => taken(s.accelerator)));
    for (const role of roles) expect(ours.has(taken(role)), role).toBe(false);
  });

  it('numbers the screens by their place in the drawer, Overview (the home screen) first', () => {
    const digits = SHORTCUTS.filter((s) => /\+[0-9]$/.test(s.accelerator)).map((s) => [s.accelerator.slice(-1), s.command]);
    expect(digits).toEqual([['1', 'go-overview'], ['2', 'go-balances'], ['3', 'go-new-payout'], ['4', 'go-batches'], ['5', 'go-approvals'], ['6', 'go-payees'], ['7', 'go-history'], ['8', 'go-payins'], ['9', 'go-people']]);
  });
});

describe('accelerators', () => {
  it('are read as Electron writes them', () => {
    expect(parseAccelerator('CmdOrCtrl+N')).toEqual({ primary: true, shift: false, alt: false, key: 'N' });
    expect(parseAccelerator('Shift+CmdOrCtrl+k')).toEqual({ primary: true, shift: true, alt: false, key: 'K' });
    expect(parseAccelerator('F5')).toEqual({ primary: false, shift: false, alt: false, key: 'F5' });
    expect(parseAccelerator('CmdOrCtrl+/')).toEqual({ primary: true, shift: false, alt: false, key: '/' });
  });

  it('refuse what the page could not match, so no menu key silently does nothing in the page', () => {
    for (const bad of ['CmdOrCtrl+Plus', 'Ctrl+N', 'Super+N', 'CmdOrCtrl+', 'CmdOrCtrl+Enter', 'F25']) expect(() => parseAccelerator(bad), bad).toThrow();
  });

  it('are written for the platform', () => {
    expect(acceleratorText('CmdOrCtrl+N', false)).toBe('Ctrl+N');
    expect(acceleratorText('CmdOrCtrl+N', true)).toBe('⌘N');
    expect(acceleratorText('Shift+CmdOrCtrl+,', false)).toBe('Ctrl+Shift+,');
    expect(acceleratorText('F5', true)).toBe('F5');
  });
});

describe('a key press', () => {
  it('matches Ctrl elsewhere and Cmd on macOS, never the other one', () => {
    expect(pressMatches('CmdOrCtrl+N', ctrl('n'), false)).toBe(true);
    expect(pressMatches('CmdOrCtrl+N', cmd('n'), false)).toBe(false);
    expect(pressMatches('CmdOrCtrl+N', cmd('n'), true)).toBe(true);
    expect(pressMatches('CmdOrCtrl+N', ctrl('n'), true)).toBe(false);
    expect(pressMatches('CmdOrCtrl+N', press('n'), false)).toBe(false);
  });

  it('needs exactly the modifiers: AltGr (Ctrl+Alt on Windows) and Shift are other keys', () => {
    expect(pressMatches('CmdOrCtrl+L', ctrl('l', { altKey: true }), false)).toBe(false);
    expect(pressMatches('CmdOrCtrl+L', ctrl('L', { shiftKey: true }), false)).toBe(false);
    expect(pressMatches('F5', press('F5', { shiftKey: true }), false)).toBe(false);
    expect(pressMatches('F5', press('F5'), false)).toBe(true);
  });

  it('finds a digit by its key on layouts without digits there (AZERTY gives "é" for Ctrl+2)', () => {
    expect(pressMatches('CmdOrCtrl+2', ctrl('2', { code: 'Digit2' }), false)).toBe(true);
    expect(pressMatches('CmdOrCtrl+2', ctrl('é', { code: 'Digit2' }), false)).toBe(true);
    expect(pressMatches('CmdOrCtrl+2', ctrl('2', { code: 'Numpad2' }), false)).toBe(true);
    expect(pressMatches('CmdOrCtrl+2', ctrl('3', { code: 'Digit3' }), false)).toBe(false);
  });

  it('finds a letter by its physical key only where the layout gives no Latin letter', () => {
    // Russian: Ctrl+N is "т" on the N key.
    expect(pressMatches('CmdOrCtrl+N', ctrl('т', { code: 'KeyN' }), false)).toBe(true);
    // AZERTY: the physical Q key is "a", and "a" is not N.
    expect(pressMatches('CmdOrCtrl+N', ctrl('a', { code: 'KeyN' }), false)).toBe(false);
  });

  it('lets a punctuation key need Shift where the layout puts it there ("/" is Shift+7 in German)', () => {
    expect(pressMatches('CmdOrCtrl+/', ctrl('/', { shiftKey: true, code: 'Digit7' }), false)).toBe(true);
    expect(pressMatches('CmdOrCtrl+/', ctrl('/', { code: 'Slash' }), false)).toBe(true);
    expect(pressMatches('CmdOrCtrl+,', cmd(','), true)).toBe(true);
  });
});

describe('what the page does with a key', () => {
  const run = (command: MenuCommand) => ({ action: 'run', command });
  it('runs the command of every shortcut of the table, from its own key', () => {
    for (const s of SHORTCUTS) {
      const a = parseAccelerator(s.accelerator);
      const key = a.key.length === 1 ? a.key.toLowerCase() : a.key;
      expect(decideKey(press(key, { ctrlKey: a.primary, shiftKey: a.shift, altKey: a.alt }), page), s.accelerator).toEqual(run(s.command));
      expect(decideKey(press(key, { metaKey: a.primary, shiftKey: a.shift, altKey: a.alt }), mac), s.accelerator).toEqual(run(s.command));
    }
  });

  it('leaves every other key to the page and the browser (typing, Ctrl+C, Ctrl+0, Ctrl+R)', () => {
    for (const p of [press('n'), press('2'), ctrl('c'), ctrl('0'), ctrl('r'), press('Enter'), press('F6')]) expect(decideKey(p, page), p.key).toBeNull();
  });

  it('works while typing in a field too: Cmd/Ctrl keys and F5 type nothing (as the menu’s accelerators do)', () => {
    expect(decideKey(ctrl('f'), { ...page, inTextField: true })).toEqual(run('find-history'));
    expect(decideKey(press('F5'), { ...page, inTextField: true })).toEqual(run('refresh'));
  });

  it('swallows a shortcut while a dialog is open, and a key held down: nothing runs, and the menu does not run it either', () => {
    expect(decideKey(ctrl('2'), { ...page, dialogOpen: true })).toEqual({ action: 'swallow', command: 'go-balances' });
    expect(decideKey(press('F5'), { ...page, repeat: true })).toEqual({ action: 'swallow', command: 'refresh' });
  });
});
