// DialogPort over Electron's dialog module. Electron's dialog is passed in (never required here), so
// this runs under plain Node in tests with a stand-in for it.
import { join } from 'node:path';
import type { BaseWindow, Dialog } from 'electron';
import type { DialogPort } from '../desk/dialogs';

export interface FileDialogOptions {
  dialog: Pick<Dialog, 'showOpenDialog' | 'showSaveDialog'>;
  /** The window the dialog belongs to (modal to it); null shows it on its own. */
  window: () => BaseWindow | null;
  /** Where a save dialog starts (Electron's app.getPath('documents')). */
  documentsDir: string;
}

export function electronFileDialogs(options: FileDialogOptions): DialogPort {
  const { dialog } = options;
  return {
    async chooseOpenFile({ title, filters }) {
      const window = options.window();
      const settings = { title, filters, properties: ['openFile' as const] };
      const choice = window ? await dialog.showOpenDialog(window, settings) : await dialog.showOpenDialog(settings);
      const path = choice.filePaths[0];
      return choice.canceled || !path ? null : path;
    },
    async chooseSavePath({ title, defaultFileName, filters }) {
      const window = options.window();
      // The file is written only if it is new (the service refuses to replace one), and into a folder
      // that exists: main never makes folders for it.
      const settings = { title, filters, defaultPath: join(options.documentsDir, defaultFileName) };
      const choice = window ? await dialog.showSaveDialog(window, settings) : await dialog.showSaveDialog(settings);
      return choice.canceled || !choice.filePath ? null : choice.filePath;
    },
  };
}
