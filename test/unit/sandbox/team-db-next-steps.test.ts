// The lines `npm run team-db` prints are pasted into a shell: a password given through
// --owner-password-env / --member-password-env reaches the CLI as it was, whatever it holds.
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { readyLines, shellWord } from '../../../sandbox/team-db/next-steps';

const echoed = (word: string) => execFileSync('sh', ['-c', `printf '%s' ${word}`], { encoding: 'utf8' });

describe('team-db next steps', () => {
  it.each(["it's", 'a b', '$HOME', '`id`', '"q"', '-n', 'plain_Pw-1'])('a password %s survives the shell as it is', (password) => {
    expect(echoed(shellWord(password))).toBe(password);
  });

  it("names the profile and the passwords in the init and set lines, and tells how it stops", () => {
    const lines = readyLines({
      port: 5433, serverVersion: '15.1', database: 'payouts', owner: 'payouts_owner', ownerPassword: "o'wn", member: 'payouts_desk',
      memberPassword: 'm em', dir: '/tmp/x', kept: false, reused: false, profile: 'shop',
    });
    const init = lines.find((l) => l.includes('profiles team init'))!;
    expect(init).toContain("printf '%s' 'm em' | OWNER_PW='o'\\''wn' npm run -s cli -- profiles team init shop --owner-url postgres://payouts_owner@127.0.0.1:5433/payouts --tls disable");
    expect(lines.find((l) => l.includes('profiles team set'))).toContain('--url postgres://payouts_desk@127.0.0.1:5433/payouts --tls disable --password-stdin');
    expect(lines.at(-1)).toBe('Stop: Ctrl-C (PostgreSQL stops; the folder is removed).');
  });

  it('names the variables, never the passwords, when they were given through the environment', () => {
    const lines = readyLines({
      port: 5433, serverVersion: '15.1', database: 'payouts', owner: 'payouts_owner', ownerPassword: 'secret-o', member: 'payouts_desk',
      memberPassword: 'secret-m', dir: '/tmp/x', kept: true, reused: false, profile: 'sandbox', ownerPasswordEnv: 'TEAM_OWNER_PW', memberPasswordEnv: 'TEAM_DESK_PW',
    });
    expect(lines.join('\n')).not.toMatch(/secret-/);
    expect(lines.find((l) => l.includes('profiles team init'))).toContain(`printf '%s' "$TEAM_DESK_PW" | npm run -s cli -- profiles team init sandbox --owner-url postgres://payouts_owner@127.0.0.1:5433/payouts --tls disable --owner-password-env TEAM_OWNER_PW --member payouts_desk --member-password-stdin`);
    expect(lines.find((l) => l.includes('profiles team set'))).toContain(`printf '%s' "$TEAM_DESK_PW" | npm run -s cli -- profiles team set sandbox`);
  });
});
