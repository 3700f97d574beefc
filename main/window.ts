// The main window. webPreferences come from one factory, tested item by item against Electron's
// security checklist; the window loads the renderer from app://desk/, never from a file URL. The
// navigation, window-open and webview guards are attached to every webContents in main/index.ts.
import { join } from 'node:path';
import { BrowserWindow, type WebPreferences } from 'electron';
import { APP_ENTRY_URL } from './shell/app-protocol';

export function secureWebPreferences(preloadPath: string): WebPreferences {
  return {
    preload: preloadPath,
    contextIsolation: true,
    sandbox: true,
    nodeIntegration: false,
    nodeIntegrationInWorker: false,
    nodeIntegrationInSubFrames: false,
    webSecurity: true,
    allowRunningInsecureContent: false,
    experimentalFeatures: false,
    // Middle-click must not open links in a new window (window.open is denied anyway).
    disableBlinkFeatures: 'Auxclick',
    webviewTag: false,
    navigateOnDragDrop: false,
    safeDialogs: true,
    spellcheck: false,
    devTools: true,
  };
}

export interface MainWindowOptions {
  preloadPath?: string;
  /** ELECTRON_RENDERER_URL in `electron-vite dev`; app://desk/ otherwise. */
  devServerUrl?: string;
  isPackaged: boolean;
}

export function createMainWindow(options: MainWindowOptions): BrowserWindow {
  const preferences = secureWebPreferences(options.preloadPath ?? join(import.meta.dirname, '../preload/index.cjs'));
  const window = new BrowserWindow({
    width: 1280,
    height: 820,
    minWidth: 960,
    minHeight: 600,
    show: false,
    title: 'Payout Desk',
    webPreferences: { ...preferences, devTools: !options.isPackaged },
  });
  window.once('ready-to-show', () => window.show());
  void window.loadURL(options.devServerUrl && !options.isPackaged ? options.devServerUrl : APP_ENTRY_URL);
  return window;
}
