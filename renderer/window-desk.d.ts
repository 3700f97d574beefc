// window.desk is the only door to main; its type is derived from the one contract in contract/api.ts.
import type { DeskApi } from '../contract/api';

declare global {
  interface Window {
    desk: DeskApi;
  }
}

export {};
