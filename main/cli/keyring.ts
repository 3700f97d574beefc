// `keyring start|stop|status`: one keyring step per shell on a headless Linux machine, as ssh-agent does
// for keys: `eval "$(npx payout-desk keyring start)"` once, then every command finds the keychain.
// Only the lines for eval go to stdout; everything said to the person goes to stderr.
import type { Command } from 'commander';
import { agentStateDir, exportLines, findAgent, missingPrograms, startAgent, stopAgent, unsetLines, type Agent, type AgentStatus } from '../keys/keyring-agent';
import { secretServiceState } from '../keys/secret-service-bus';
import { CliUsageError, type CliDeps } from './deps';
import { cliPrefix } from './invocation';
import { askHiddenOnTerminal, keyringPassword, type PasswordOptions } from './keyring-password';

const agentVariables = (agent: Agent) => ({ DBUS_SESSION_BUS_ADDRESS: agent.busAddress, PAYOUT_DESK_KEYRING_PIDS: `${agent.busPid} ${agent.keyringPid}` });

export function registerKeyringCommands(program: Command, deps: CliDeps): void {
  const keyring = program
    .command('keyring')
    .description('a keychain for a headless shell (SSH, container): eval "$(npx payout-desk keyring start)" once, "keyring stop" at the end');

  keyring
    .command('start')
    .description('start (or find) a private session bus and an unlocked GNOME Keyring; prints the variables to eval')
    .option('--password-file <file>', 'read the keyring password from this file')
    .option('--password-env <NAME>', 'read the keyring password from this environment variable (default: KEYRING_PASSWORD, else asked on the terminal)')
    .action(async (options: PasswordOptions) => {
      if (process.platform !== 'linux') return say(deps, `Nothing to start on ${process.platform}: its keychain is part of the system.`);
      const found = await findAgent(deps.env);
      if (found?.running && found.service === 'unlocked') {
        say(deps, `The keyring started earlier runs and is unlocked (pids ${found.agent.busPid} ${found.agent.keyringPid}).`);
        return printAgent(deps, found.agent);
      }
      // Locked (given a wrong password before?) or gone: cleared away before a fresh start.
      if (found) await stopAgent(deps.env, found.agent);
      const other = deps.env['DBUS_SESSION_BUS_ADDRESS'];
      if (!found?.running && other && (await secretServiceState(other)) === 'unlocked') {
        return say(deps, 'The session bus of this shell already has an unlocked Secret Service: nothing to start.');
      }
      const missing = missingPrograms(deps.env);
      if (missing.length > 0) throw new CliUsageError(`Not installed: ${missing.join(', ')}. On Debian or Ubuntu: apt-get install dbus gnome-keyring (as root; else with sudo)`);
      const password = await keyringPassword(options, { env: deps.env, askHidden: askHiddenOnTerminal });
      const agent = await startAgent(deps.env, password);
      say(deps, `Keyring started (pids ${agent.busPid} ${agent.keyringPid}), unlocked; its keys stay in ~/.local/share/keyrings. End it with: eval "$(${cliPrefix(deps.env)} keyring stop)"`);
      printAgent(deps, agent);
    });

  keyring
    .command('stop')
    .description('stop the keyring "keyring start" started; prints the lines to eval that unset its variables')
    .action(async () => {
      const found = await findAgent(deps.env);
      if (found) await stopAgent(deps.env, found.agent);
      say(deps, found ? `Keyring stopped (pids ${found.agent.busPid} ${found.agent.keyringPid}).` : 'No keyring started by "keyring start" is running.');
      deps.io.stdout(deps.json() ? `${JSON.stringify({ stopped: found !== null })}\n` : `${unsetLines()}\n`);
    });

  keyring
    .command('status')
    .description('whether the keyring "keyring start" started runs and is unlocked (exit 0 only then)')
    .action(async () => {
      const found = await findAgent(deps.env);
      deps.print(statusLines(found, agentStateDir(deps.env)), found ? { ...found.agent, running: found.running, secretService: found.service } : { running: false });
      if (!found?.running || found.service !== 'unlocked') deps.setExitCode(1);
    });
}

function statusLines(found: AgentStatus | null, stateDir: string): string[] {
  if (!found) return [`No keyring started by "keyring start" (nothing in this shell's variables or in ${stateDir}).`];
  if (!found.running) return [`The keyring started earlier (pids ${found.agent.busPid} ${found.agent.keyringPid}) is no longer running: start it again.`];
  return [
    `Keyring running: bus pid ${found.agent.busPid}, gnome-keyring-daemon pid ${found.agent.keyringPid}.`,
    `  bus      ${found.agent.busAddress}`,
    `  keyring  ${found.service === 'unlocked' ? 'unlocked' : `${found.service} (stop it and start it again with the right password)`}`,
  ];
}

function printAgent(deps: CliDeps, agent: Agent): void {
  deps.io.stdout(deps.json() ? `${JSON.stringify(agentVariables(agent))}\n` : `${exportLines(agent)}\n`);
}

function say(deps: CliDeps, line: string): void {
  deps.io.stderr(`${line}\n`);
}
