// What this desk knows of a profile's control chain, kept in its own OS keychain (never in the journal file or
// the team database, which others can write): that dual control is on, the chain's root fingerprint, and the
// newest record it verified. A chain that does not start with that root, does not reach that record with that
// hash, or is gone while the pin says "on" sends nothing here (control-state.ts).
//   profile:<id>:control-pin  {"on":true,"fingerprint","head":{"seq","hash"},"confirmed"}
// `confirmed`: a person compared the fingerprint with the team's admin out of band (or this desk made the
// chain); a chain first seen in a team database is pinned as found until then.
import { z } from 'zod';
import { readKeychainJson, type KeyStore } from '../keys/key-store';
import { lazy } from '../lazy';

export const controlPinAccount = (profileId: string) => `profile:${profileId}:control-pin`;

const PinSchema = lazy(() =>
  z.object({
    on: z.literal(true),
    fingerprint: z.string().nullable(),
    head: z.object({ seq: z.number().int().min(1), hash: z.string().regex(/^[0-9a-f]{64}$/) }).nullable(),
    confirmed: z.boolean(),
  }),
);
export type ControlPin = z.infer<ReturnType<typeof PinSchema>>;

export function readControlPin(keyStore: KeyStore, profileId: string): Promise<ControlPin | null> {
  return readKeychainJson(keyStore, controlPinAccount(profileId), PinSchema());
}

export async function writeControlPin(keyStore: KeyStore, profileId: string, pin: ControlPin): Promise<void> {
  await keyStore.set(controlPinAccount(profileId), JSON.stringify(pin));
}
