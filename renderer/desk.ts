import type { DeskApi } from '../contract/api';

/** The bridge to main. A function, so tests and late-installed bridges are picked up at call time. */
export function desk(): DeskApi {
  return window.desk;
}
