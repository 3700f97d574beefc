// A keychain the CLI cannot use is reported in one form, whole: the reason once, then the fix ending with the
// command as the person typed it, whether the error came straight from the keychain or through a desk
// service (which clips it and adds the app's short hint).
import { describe, expect, it } from 'vitest';
import { keychainErrorForCli } from '../../../main/cli/keychain-fix';
import { toIpcError } from '../../../main/desk/errors';
import { KeyStoreError, lockedKeyringMessage } from '../../../main/keys/key-store';

const npx = { npm_command: 'exec' };
const noBus = 'Could not read the OS keychain (service payout-desk): Cannot autolaunch D-Bus without X11 $DISPLAY';
const argv = ['--profile', 'shop', 'payouts', 'create', '--amount', '12.50', '--account-name', 'Jane Doe'];

describe('the keychain error on the command line', () => {
  it('names the fix and the command as typed, with its words quoted for the shell', () => {
    const text = keychainErrorForCli(noBus, argv, npx);
    expect(text.split('\n')[0]).toBe(noBus);
    expect(text).toContain('  eval "$(npx payout-desk keyring start)"');
    expect(text).toContain(`  npx payout-desk --profile shop payouts create --amount 12.50 --account-name 'Jane Doe'`);
  });

  it('is the same whole text when it came through a desk service, as the app words it', () => {
    const app = toIpcError(new KeyStoreError(noBus)).message;
    expect(app).toMatch(/^the system keychain is not available: /);
    expect(app).toContain('keyring start)" first');
    expect(keychainErrorForCli(app, argv, npx)).toBe(keychainErrorForCli(noBus, argv, npx));
    // The fix appears once, not the app's short hint beside it.
    expect(keychainErrorForCli(app, argv, npx).match(/keyring start/g)).toHaveLength(1);
  });

  it('keeps the whole fix when the app form of a long reason was clipped', () => {
    const app = toIpcError(new KeyStoreError(`${noBus} ${'x'.repeat(600)}`)).message;
    expect(app).toContain('…');
    const text = keychainErrorForCli(app, argv, npx);
    expect(text).toContain('  eval "$(npx payout-desk keyring start)"');
    expect(text).toContain(`npx payout-desk --profile shop payouts create --amount 12.50 --account-name 'Jane Doe'`);
    expect(text).toContain('"npx payout-desk keyring stop" ends it.)');
  });

  it('a locked keyring asks for the right password, not for a key that is there', () => {
    const text = keychainErrorForCli(lockedKeyringMessage('OS keychain (service payout-desk)'), ['keys', 'generate'], npx);
    expect(text).toMatch(/^the keyring did not unlock: wrong password\?/);
    expect(text).toContain('eval "$(npx payout-desk keyring stop)"');
    expect(text).toContain('  npx payout-desk keys generate');
    expect(text).not.toContain('wrap key');
  });

  it('leaves other keychain errors as they are', () => {
    expect(keychainErrorForCli('The specified item could not be found in the keychain.', ['keys', 'list'], npx)).toBe('The specified item could not be found in the keychain.');
  });
});
