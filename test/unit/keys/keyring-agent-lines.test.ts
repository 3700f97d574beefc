// The lines `keyring start` and `keyring stop` print are run by the person's shell through eval: they must
// set (and unset) exactly the variables, whatever the address holds, and be read back by the next command.
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { agentFromEnv, exportLines, shellQuote, unsetLines } from '../../../main/keys/keyring-agent';
import { parseLockedReply, parseOwnerReply } from '../../../main/keys/secret-service-bus';

const agent = { busAddress: "unix:path=/tmp/dbus-Ab12,guid=f00d", busPid: 4242, keyringPid: 4243 };

/** What sh sees after eval of `lines`: the two variables, and whether they are exported to a child. */
function afterEval(lines: string, before: Record<string, string> = {}): string {
  const script = `${lines}\nsh -c 'printf "%s|%s" "$DBUS_SESSION_BUS_ADDRESS" "$PAYOUT_DESK_KEYRING_PIDS"'`;
  return execFileSync('sh', ['-c', 'eval "$0"', script], { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...before }, encoding: 'utf8' });
}

describe('keyring agent: lines for eval', () => {
  it('exports the bus address and the pids to the commands run after eval', () => {
    expect(afterEval(exportLines(agent))).toBe(`${agent.busAddress}|4242 4243`);
  });

  it('keeps an address with quotes and shell characters as it is', () => {
    const odd = { ...agent, busAddress: `unix:path=/tmp/it's $HOME; rm -rf x` };
    expect(afterEval(exportLines(odd))).toBe(`${odd.busAddress}|4242 4243`);
    expect(shellQuote("a'b")).toBe(`'a'\\''b'`);
  });

  it('stop unsets both', () => {
    expect(afterEval(unsetLines(), { DBUS_SESSION_BUS_ADDRESS: 'x', PAYOUT_DESK_KEYRING_PIDS: '1 2' })).toBe('|');
  });

  it('the next command finds the agent from the variables, and nothing from a bus that is not its own', () => {
    expect(agentFromEnv({ DBUS_SESSION_BUS_ADDRESS: agent.busAddress, PAYOUT_DESK_KEYRING_PIDS: '4242 4243' })).toEqual(agent);
    // A desktop session's bus (no pids of ours) is never taken for one this command may stop.
    expect(agentFromEnv({ DBUS_SESSION_BUS_ADDRESS: agent.busAddress })).toBeNull();
    expect(agentFromEnv({ DBUS_SESSION_BUS_ADDRESS: agent.busAddress, PAYOUT_DESK_KEYRING_PIDS: '4242' })).toBeNull();
  });
});

describe('secret service state from dbus-send replies', () => {
  it('reads the Locked property and whether the name has an owner', () => {
    expect(parseLockedReply('method return time=1 sender=:1.0 -> destination=:1.1 serial=5 reply_serial=2\n   variant       boolean true\n')).toBe('locked');
    expect(parseLockedReply('   variant       boolean false\n')).toBe('unlocked');
    expect(parseLockedReply('')).toBe('unknown');
    expect(parseOwnerReply('   boolean true\n')).toBe(true);
    expect(parseOwnerReply('   boolean false\n')).toBe(false);
  });
});
