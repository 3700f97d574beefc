// Preload: exposes `window.desk` built from the contract, and nothing else. ipcRenderer itself
// never reaches the renderer; each listener gets the payload only, never the IPC event. A dropped
// file's path is read here (webUtils), so the page hands over File objects, never path strings.
import { contextBridge, ipcRenderer, webUtils, type IpcRendererEvent } from 'electron';
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
  (file) => webUtils.getPathForFile(file),
);

contextBridge.exposeInMainWorld('desk', desk);
