// Outside a desktop session (no D-Bus session bus, no X11 to autolaunch one) the CLI cannot reach the
// keychain: the error must say what is missing and how to run it headless, not only keytar's words.
import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { secretServiceHint } from '../../../main/keys/key-store';

const root = join(import.meta.dirname, '../../..');

function cliWithoutBus(home: string, busAddress: string | undefined, ...args: string[]): Promise<{ code: number; out: string; err: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.DISPLAY;
  delete env.DBUS_SESSION_BUS_ADDRESS;
  if (busAddress) env.DBUS_SESSION_BUS_ADDRESS = busAddress;
  return cli(home, env, ...args);
}

function cli(home: string, baseEnv: NodeJS.ProcessEnv, ...args: string[]): Promise<{ code: number; out: string; err: string }> {
  const env: NodeJS.ProcessEnv = { ...baseEnv, PAYOUT_DESK_HOME: home };
  return new Promise((resolve) => {
    execFile(join(root, 'node_modules/.bin/tsx'), ['main/cli/index.ts', ...args], { cwd: root, env, timeout: 60_000 }, (error, out, err) => {
      resolve({ code: typeof error?.code === 'number' ? error.code : error ? 1 : 0, out, err });
    });
  });
}

const NO_BUS: [string, string | undefined][] = [
  ['a bus address that points nowhere', 'unix:path=/nonexistent/payout-desk-test-bus'],
  ['no bus and no $DISPLAY', undefined],
];

function expectSecretServiceHint(err: string): void {
  expect(err).toContain('Could not read the OS keychain');
  expect(err).toContain('Secret Service');
  expect(err).toContain('running and unlocked');
  // The one step per shell, then the very command to run again.
  expect(err).toContain('keyring start)"');
}

describe('keychain unavailable', () => {
  it.each(NO_BUS)('profiles add with %s refuses before adding anything (its audit entry could not be sealed) and says how to start a Secret Service', async (_label, bus) => {
    const home = mkdtempSync(join(tmpdir(), 'desk-nobus-'));
    const r = await cliWithoutBus(home, bus, 'profiles', 'add', '--name', 'Headless', '--base-url', 'http://127.0.0.1:9', '--merchant-code', 'M');
    expect(r.code).toBe(1);
    expectSecretServiceHint(r.err);
    expect(r.err).not.toContain('Added profile');
    const list = await cli(home, process.env, 'profiles', 'list');
    expect(list.out).toContain('No profiles yet');
  }, 120_000);

  it.each(NO_BUS)('keys generate with %s says a Secret Service is needed and how to start one', async (_label, bus) => {
    const home = mkdtempSync(join(tmpdir(), 'desk-nobus-'));
    // The profile is added in the session the tests run in (with its keyring); only the key command lacks one.
    expect((await cli(home, process.env, 'profiles', 'add', '--name', 'Headless', '--base-url', 'http://127.0.0.1:9', '--merchant-code', 'M')).code).toBe(0);
    const r = await cliWithoutBus(home, bus, 'keys', 'generate', '--bits', '2048');
    expect(r.code).toBe(1);
    expectSecretServiceHint(r.err);
    // Once, whole, ending with the command as typed (npx payout-desk when the tests run under npx).
    expect(r.err.match(/keyring start/g)).toHaveLength(1);
    expect(r.err).toMatch(/\n {2}(npx )?payout-desk keys generate --bits 2048\n/);
  }, 120_000);

  it('adds no hint to keychain errors of other kinds', () => {
    expect(secretServiceHint('The specified item could not be found in the keychain.')).toBeNull();
    // Without the command (the app's callers), it runs from a clone as printed: the bin is not on PATH, npx finds it.
    expect(secretServiceHint('Cannot autolaunch D-Bus without X11 $DISPLAY')).toContain('eval "$(npx payout-desk keyring start)"');
  });
});
