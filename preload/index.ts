// Preload: exposes `window.desk` built from the contract, and nothing else. ipcRenderer itself
// never reaches the renderer; each listener gets the payload only, never the IPC event.
import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron';
import { buildDeskApi } from './desk-bridge';

const desk = buildDeskApi(
  (channel, args) => ipcRenderer.invoke(channel, args),
  (channel, listener) => {
    const forward = (_event: IpcRendererEvent, payload: unknown) => listener(payload);
    ipcRenderer.on(channel, forward);
    return () => {
      ipcRenderer.removeListener(channel, forward);
    };
  },
);

contextBridge.exposeInMainWorld('desk', desk);
