// Wrong passphrases back off: after a few, each further try of that person at this desk must wait, twice as
// long each time (1 s, 2 s, 4 s … up to 15 min), until one succeeds. The count lives in this desk's keychain,
// so quitting the app or running one CLI command per guess does not reset it; it is this desk's, like the
// sealed key it guards (a copy of that key elsewhere cannot be opened without this machine's wrap key).
//   person:<id>:unlock-failures  {"count","lastAt"}
import { z } from 'zod';
import { readKeychainJson, type KeyStore } from '../keys/key-store';
import { lazy } from '../lazy';
import { PeopleError } from './roles';

export const unlockFailuresAccount = (personId: string) => `person:${personId}:unlock-failures`;
/** Tries that cost no wait. */
export const FREE_TRIES = 3;
export const MAX_WAIT_MS = 15 * 60_000;

const Failures = lazy(() => z.object({ count: z.number().int().min(0), lastAt: z.number() }));

/** How long after the last failure the next try must wait, after `count` failures in a row. */
export function unlockWaitMs(count: number): number {
  if (count < FREE_TRIES) return 0;
  return Math.min(MAX_WAIT_MS, 1000 * 2 ** (count - FREE_TRIES));
}

export class UnlockThrottle {
  constructor(
    private readonly keyStore: KeyStore,
    private readonly now: () => number = Date.now,
  ) {}

  /** Refuses (THROTTLED, with the wait) when the person must wait before trying again. */
  async check(personId: string, name: string, what = 'wrong passphrases'): Promise<void> {
    const f = await readKeychainJson(this.keyStore, unlockFailuresAccount(personId), Failures());
    if (!f) return;
    const left = f.lastAt + unlockWaitMs(f.count) - this.now();
    if (left > 0) {
      throw new PeopleError('THROTTLED', `${f.count} ${what} in a row for ${name}: try again in ${Math.ceil(left / 1000)} s (each further wrong one doubles the wait)`);
    }
  }

  /** A wrong passphrase: the count after it. */
  async failed(personId: string): Promise<number> {
    const f = await readKeychainJson(this.keyStore, unlockFailuresAccount(personId), Failures());
    const count = (f?.count ?? 0) + 1;
    await this.keyStore.set(unlockFailuresAccount(personId), JSON.stringify({ count, lastAt: this.now() }));
    return count;
  }

  async succeeded(personId: string): Promise<void> {
    await this.keyStore.delete(unlockFailuresAccount(personId));
  }
}
