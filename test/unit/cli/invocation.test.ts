import { describe, expect, it } from 'vitest';
import { cliPrefix, typedCommand } from '../../../main/cli/invocation';

describe('a hint names the command as the user typed it', () => {
  it('npm run cli from the project folder', () => {
    expect(typedCommand('batch resume b1', { npm_lifecycle_event: 'cli', npm_command: 'run-script' })).toBe('npm run -s cli -- batch resume b1');
  });
  it('npx payout-desk', () => {
    expect(typedCommand('keys list', { npm_command: 'exec', npm_lifecycle_event: 'npx' })).toBe('npx payout-desk keys list');
  });
  it('payout-desk on PATH', () => {
    expect(cliPrefix({})).toBe('payout-desk');
  });
});
