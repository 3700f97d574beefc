// What the services need from demo mode (main/demo/demo-mode.ts implements it); null in builds without it.
import type { Profile } from '../profiles/profile-schema';

export interface DemoController {
  /** Starts the sandbox, creates the Demo profile with a registered key and funded balances. */
  createDemoProfile(): Promise<Profile>;
  /** Demo only: the sandbox marks a payin paid. */
  markPayinPaid(profileId: string, idPayin: string): void;
  /** Registers the profile's usable public keys with the demo sandbox (after generate, import, rotate). */
  registerKeys(profileId: string): Promise<void>;
}
