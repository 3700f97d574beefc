// Electron entry: reads as a list of features. Only this file, window.ts and ipc.ts import electron.
import { app } from 'electron';
import { createMainWindow } from './window';

app.whenReady().then(() => {
  createMainWindow();
  app.on('activate', () => createMainWindow());
});

app.on('window-all-closed', () => {
  if (process.platform !== 'darwin') app.quit();
});
