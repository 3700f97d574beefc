// The keyboard shortcuts, once: the application menu (main/shell/menu.ts) puts each on its item as the
// accelerator, the renderer (composables/use-shortcut-keys.ts) answers the same keys in the page, and the
// Keyboard shortcuts dialog lists them. In Electron the page sees a key before the menu does, and a key the
// page handled (preventDefault) never reaches the menu's accelerator, so each press runs its command once;
// in the end-to-end browser there is no menu and the page alone answers.
// Pure and DOM-free: main (Node) and the renderer both import it.
import type { MenuCommand } from './api';

export type ShortcutMenu = 'file' | 'go' | 'view' | 'help';

export interface Shortcut {
  command: MenuCommand;
  /** The top-level menu the item sits in. */
  menu: ShortcutMenu;
  /** The menu item's label, also the action's name in the dialog. */
  label: string;
  /** Electron's accelerator syntax, limited to what {@link parseAccelerator} reads. */
  accelerator: string;
  /** What it does, in the Keyboard shortcuts dialog. */
  description: string;
}

/**
 * Go: the screens in the navigation drawer's order, each digit the screen's place there (Overview, the home
 * screen, is 1). Settings, the tenth, takes the usual Cmd/Ctrl+,. CmdOrCtrl+R stays Electron's reload of
 * development builds: Refresh is F5.
 */
export const SHORTCUTS: readonly Shortcut[] = [
  { command: 'new-payout', menu: 'file', label: 'New payout…', accelerator: 'CmdOrCtrl+N', description: 'Opens New payout with the cursor in Amount' },
  { command: 'import-csv', menu: 'file', label: 'Import CSV batch…', accelerator: 'CmdOrCtrl+O', description: 'Chooses a payout CSV; Batches checks every row' },
  { command: 'export', menu: 'file', label: 'Export…', accelerator: 'CmdOrCtrl+E', description: 'Exports the rows History shows, or the results of the open batch' },
  { command: 'lock', menu: 'file', label: 'Lock', accelerator: 'CmdOrCtrl+L', description: 'Locks the person unlocked at this desk (dual control)' },
  { command: 'go-overview', menu: 'go', label: 'Overview', accelerator: 'CmdOrCtrl+1', description: 'Goes to Overview' },
  { command: 'go-balances', menu: 'go', label: 'Balances', accelerator: 'CmdOrCtrl+2', description: 'Goes to Balances' },
  { command: 'go-new-payout', menu: 'go', label: 'New payout', accelerator: 'CmdOrCtrl+3', description: 'Goes to New payout' },
  { command: 'go-batches', menu: 'go', label: 'Batches', accelerator: 'CmdOrCtrl+4', description: 'Goes to Batches' },
  { command: 'go-approvals', menu: 'go', label: 'Approvals', accelerator: 'CmdOrCtrl+5', description: 'Goes to Approvals' },
  { command: 'go-payees', menu: 'go', label: 'Payees', accelerator: 'CmdOrCtrl+6', description: 'Goes to Payees' },
  { command: 'go-history', menu: 'go', label: 'History', accelerator: 'CmdOrCtrl+7', description: 'Goes to History' },
  { command: 'go-payins', menu: 'go', label: 'Payins', accelerator: 'CmdOrCtrl+8', description: 'Goes to Payins' },
  { command: 'go-people', menu: 'go', label: 'People', accelerator: 'CmdOrCtrl+9', description: 'Goes to People' },
  { command: 'go-settings', menu: 'go', label: 'Settings', accelerator: 'CmdOrCtrl+,', description: 'Goes to Settings' },
  { command: 'find-history', menu: 'go', label: 'Find in History…', accelerator: 'CmdOrCtrl+F', description: 'Goes to History with the cursor in its search field' },
  { command: 'refresh', menu: 'view', label: 'Refresh', accelerator: 'F5', description: 'Loads the screen again (Balances: from the gateway)' },
  { command: 'shortcuts', menu: 'help', label: 'Keyboard shortcuts', accelerator: 'CmdOrCtrl+/', description: 'Shows this list' },
];

/** The shortcut of a command, if it has one. */
export function shortcutOf(command: MenuCommand): Shortcut | undefined {
  return SHORTCUTS.find((s) => s.command === command);
}

export interface ParsedAccelerator {
  /** Cmd on macOS, Ctrl elsewhere. */
  primary: boolean;
  shift: boolean;
  alt: boolean;
  /** One character ('N', '2', '/', ','), or a function key ('F5'). */
  key: string;
}

const FUNCTION_KEY = /^F([1-9]|1[0-9]|2[0-4])$/;

/** Reads the accelerators of the table; anything else is refused, so the page never silently ignores one. */
export function parseAccelerator(accelerator: string): ParsedAccelerator {
  const parts = accelerator.split('+');
  // "CmdOrCtrl+Plus" style names are not used here; a lone "+" key would split into empty parts.
  if (parts.some((p) => p === '')) throw new Error(`unsupported accelerator: ${accelerator}`);
  const key = parts.pop() ?? '';
  const parsed: ParsedAccelerator = { primary: false, shift: false, alt: false, key: key.length === 1 ? key.toUpperCase() : key };
  for (const modifier of parts) {
    if (modifier === 'CmdOrCtrl' || modifier === 'CommandOrControl') parsed.primary = true;
    else if (modifier === 'Shift') parsed.shift = true;
    else if (modifier === 'Alt') parsed.alt = true;
    else throw new Error(`unsupported modifier ${modifier} in ${accelerator}`);
  }
  if (key.length !== 1 && !FUNCTION_KEY.test(key)) throw new Error(`unsupported key ${key} in ${accelerator}`);
  return parsed;
}

/** How a shortcut is written for a person: ⌘2 on macOS, Ctrl+2 elsewhere. */
export function acceleratorText(accelerator: string, mac: boolean): string {
  const a = parseAccelerator(accelerator);
  if (mac) return `${a.alt ? '⌥' : ''}${a.shift ? '⇧' : ''}${a.primary ? '⌘' : ''}${a.key}`;
  return [a.primary ? 'Ctrl' : '', a.alt ? 'Alt' : '', a.shift ? 'Shift' : '', a.key].filter(Boolean).join('+');
}

/** The parts of a keydown event the match needs (KeyboardEvent has them; tests pass plain objects). */
export interface KeyPress {
  key: string;
  /** The physical key ('KeyN', 'Digit2'): the fallback for layouts whose keys give no Latin letter. */
  code?: string;
  ctrlKey: boolean;
  metaKey: boolean;
  altKey: boolean;
  shiftKey: boolean;
}

const LETTER = /^[A-Z]$/;
const DIGIT = /^[0-9]$/;

function keyMatches(expected: string, press: KeyPress): boolean {
  const key = press.key.length === 1 ? press.key.toUpperCase() : press.key;
  if (key === expected) return true;
  // Cyrillic, Greek…: Ctrl+N gives 'т', but the physical key is still KeyN. Only then: on AZERTY the
  // physical KeyQ is the A key, and its own letter decides.
  if (LETTER.test(expected)) return !/^[\x20-\x7e]$/.test(press.key) && press.code === `Key${expected}`;
  // The digit row is the digit row everywhere (AZERTY gives '&' for the 1 key).
  if (DIGIT.test(expected)) return press.code === `Digit${expected}`;
  return false;
}

/** Whether the press is the accelerator: exactly its modifiers (Ctrl+Alt, AltGr on Windows, is never Ctrl). */
export function pressMatches(accelerator: string, press: KeyPress, mac: boolean): boolean {
  const a = parseAccelerator(accelerator);
  const primary = mac ? press.metaKey : press.ctrlKey;
  const other = mac ? press.ctrlKey : press.metaKey;
  if (primary !== a.primary || other || press.altKey !== a.alt) return false;
  // A punctuation key may need Shift on some layouts ('/' is Shift+7 in German): Shift decides only for
  // letters, digits and function keys.
  const shiftMatters = LETTER.test(a.key) || DIGIT.test(a.key) || FUNCTION_KEY.test(a.key);
  if (shiftMatters && press.shiftKey !== a.shift) return false;
  return keyMatches(a.key, press);
}

/** Where the key was pressed, as the page sees it. */
export interface KeyContext {
  mac: boolean;
  /** Focus in a field that takes typing (input, textarea, contenteditable). */
  inTextField: boolean;
  /** A modal dialog is open (a review, an unlock, a passphrase): shortcuts wait until it closes. */
  dialogOpen: boolean;
  /** The key is held down and repeating. */
  repeat: boolean;
}

/**
 * What the page does with a key: run a command, swallow it (it is a shortcut, but not now: a dialog is open,
 * or the key repeats; swallowed so the menu's accelerator does not run it behind the dialog), or nothing (null:
 * not a shortcut, left to the page and the browser).
 */
export type KeyDecision = { action: 'run' | 'swallow'; command: MenuCommand } | null;

export function decideKey(press: KeyPress, context: KeyContext): KeyDecision {
  const shortcut = SHORTCUTS.find((s) => pressMatches(s.accelerator, press, context.mac));
  if (!shortcut) return null;
  const a = parseAccelerator(shortcut.accelerator);
  // A plain printable key would be typing in a field: left to the field. (Every shortcut of the table has
  // Cmd/Ctrl or is a function key, which types nothing: those work in fields too, as the menu's do.)
  if (context.inTextField && !a.primary && !a.alt && a.key.length === 1) return null;
  if (context.dialogOpen || context.repeat) return { action: 'swallow', command: shortcut.command };
  return { action: 'run', command: shortcut.command };
}
