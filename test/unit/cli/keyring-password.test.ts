// `keyring start` takes the password from a file, a named variable, KEYRING_PASSWORD or the terminal, in that
// order; never from argv. A file written with echo keeps its password without the final newline.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { keyringPassword } from '../../../main/cli/keyring-password';

const noTerminal = async () => null;

describe('keyring password sources', () => {
  it('reads a file without its final newline, before any variable', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'desk-kpw-')), 'pw');
    writeFileSync(file, 'from file \n');
    expect(await keyringPassword({ passwordFile: file }, { env: { KEYRING_PASSWORD: 'env' }, askHidden: noTerminal })).toBe('from file ');
  });

  it('reads the variable named by --password-env, else KEYRING_PASSWORD, else asks', async () => {
    expect(await keyringPassword({ passwordEnv: 'MY_PW' }, { env: { MY_PW: 'mine', KEYRING_PASSWORD: 'default' }, askHidden: noTerminal })).toBe('mine');
    expect(await keyringPassword({}, { env: { KEYRING_PASSWORD: 'default' }, askHidden: noTerminal })).toBe('default');
    expect(await keyringPassword({}, { env: {}, askHidden: async () => 'typed' })).toBe('typed');
  });

  it('says which sources there are when none gives a password, and refuses an empty one', async () => {
    await expect(keyringPassword({}, { env: {}, askHidden: noTerminal })).rejects.toThrow(/--password-file <file>, --password-env <NAME> or set KEYRING_PASSWORD/);
    await expect(keyringPassword({ passwordEnv: 'UNSET_PW' }, { env: {}, askHidden: noTerminal })).rejects.toThrow('UNSET_PW (--password-env) is not set');
    await expect(keyringPassword({}, { env: { KEYRING_PASSWORD: '' }, askHidden: noTerminal })).rejects.toThrow('unencrypted');
  });
});
