// The keyboard shortcuts in the page (contract/shortcuts.ts has the one table). In Electron the page sees a
// key before the application menu; a shortcut handled here is preventDefault-ed, so the menu's accelerator
// does not run it a second time. In a browser (the end-to-end tests) there is no menu: this is all there is.
import { onBeforeUnmount, onMounted } from 'vue';
import type { MenuCommand } from '../../contract/api';
import { decideKey } from '../../contract/shortcuts';

/** Cmd is the shortcut key on macOS (navigator.platform is "MacIntel" there, also on Apple silicon). */
export function isMacPlatform(): boolean {
  return /^Mac/.test(navigator.platform);
}

/** Fields that take typing; a checkbox or a button does not. */
function isTextField(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable || target instanceof HTMLTextAreaElement || target instanceof HTMLSelectElement) return true;
  if (!(target instanceof HTMLInputElement)) return false;
  return !['checkbox', 'radio', 'button', 'submit', 'reset', 'range', 'color', 'file', 'image'].includes(target.type);
}

/** A Vuetify dialog is open (VDialog is a VOverlay with the v-dialog class; active while shown). */
function dialogOpen(): boolean {
  return document.querySelector('.v-dialog.v-overlay--active') !== null;
}

export function useShortcutKeys(run: (command: MenuCommand) => void): void {
  const mac = isMacPlatform();
  function onKeydown(event: KeyboardEvent): void {
    // Taken already (a component handled it), or an input method is composing a character.
    if (event.defaultPrevented || event.isComposing) return;
    const decision = decideKey(event, { mac, inTextField: isTextField(event.target), dialogOpen: dialogOpen(), repeat: event.repeat });
    if (!decision) return;
    // Not stopped: the app still counts the key as use (idle lock); components see it as taken.
    event.preventDefault();
    if (decision.action === 'run') run(decision.command);
  }
  // Capture on the window: before a component below could take the key for itself.
  onMounted(() => window.addEventListener('keydown', onKeydown, { capture: true }));
  onBeforeUnmount(() => window.removeEventListener('keydown', onKeydown, { capture: true }));
}
