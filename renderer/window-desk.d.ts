// window.desk is the only door to main; its type is derived from the one contract in preload/api.ts.
import type { DeskApi } from '../preload/api';

declare global {
  interface Window {
    desk: DeskApi;
  }
}

export {};
