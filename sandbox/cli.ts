// npm run sandbox -- --port <n> [--config <file.json>] [--host <addr>] [--state <file.json>]
// With --state the sandbox keeps its merchants, registered keys, balances and payments in that file
// across restarts (without it, everything is forgotten when it stops).
// Prints exactly "sandbox listening on http://127.0.0.1:<port>" (the bound port, also when --port 0).
import { Command, InvalidArgumentError } from 'commander';
import { loadSandboxConfigFile, startSandbox } from './index';
import { chainToNpm, watchChain } from './parent-watch';

function portNumber(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new InvalidArgumentError('port must be an integer 0-65535 (0 picks a free port)');
  }
  return port;
}

async function main(): Promise<void> {
  const program = new Command('sandbox')
    .description('Local emulator of the payment gateway interface')
    .option('--port <n>', 'port to listen on (0 = any free port)', portNumber, 8787)
    .option('--host <addr>', 'address to bind', '127.0.0.1')
    .option('--config <file>', 'JSON config file (defaults: sandbox/default-config.json values)')
    .option('--state <file>', 'keep merchants, registered keys, balances and payments in this JSON file across restarts')
    .parse();
  const options = program.opts<{ port: number; host: string; config?: string; state?: string }>();
  const config = options.config ? await loadSandboxConfigFile(options.config) : undefined;
  const sandbox = await startSandbox(config, {
    port: options.port,
    host: options.host,
    ...(options.state ? { stateFile: options.state, onStateError: (e: Error) => console.error(`could not write the state file: ${e.message}`) } : {}),
  });
  console.log(`sandbox listening on ${sandbox.url}`);
  if (options.state) console.log(`state kept in ${options.state}`);
  // Ctrl-C under tsx arrives twice (from the terminal and passed on by tsx): the first stops the sandbox, the
  // others are ignored rather than ending the process before its close (and its last state write) is done.
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    void sandbox.close().then(() => process.exit(0));
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  // Stopped through npm (its PID): the signal does not come down the chain, so its end is watched for.
  watchChain(chainToNpm(), () => {
    console.log('the npm that started the sandbox has stopped: stopping');
    stop();
  });
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
});
