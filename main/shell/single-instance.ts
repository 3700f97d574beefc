// One running desk per user: a second launch focuses the first window instead of opening a second
// journal writer on the same SQLite file.
import type { App, BrowserWindow } from 'electron';

export function acquireSingleInstance(app: Pick<App, 'requestSingleInstanceLock' | 'quit' | 'on'>, mainWindow: () => BrowserWindow | null): boolean {
  if (!app.requestSingleInstanceLock()) {
    app.quit();
    return false;
  }
  app.on('second-instance', () => {
    const window = mainWindow();
    if (!window) return;
    if (window.isMinimized()) window.restore();
    window.focus();
  });
  return true;
}
