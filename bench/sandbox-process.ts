// The sandbox in its own process for the benches, as a real gateway would be: it does not share the engine's CPU time.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FaultConfig, SandboxState } from '../sandbox/index';

export interface SandboxProcess {
  url: string;
  proc: ChildProcess;
  /** Its temporary folder (the config file); the caller removes it. */
  dir: string;
  state(): Promise<SandboxState>;
}

export async function startSandboxProcess(limit: number, faults: Partial<FaultConfig> = {}): Promise<SandboxProcess> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-sandbox-'));
  const configFile = join(dir, 'sandbox.json');
  writeFileSync(configFile, JSON.stringify({ rateLimitPerSecond: limit, faults }));
  const proc = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, '..', 'sandbox', 'cli.ts'), '--port', '0', '--config', configFile], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    proc.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    proc.on('exit', (code) => reject(new Error(`sandbox exited with ${code}`)));
  });
  return { url, proc, dir, state: async () => (await (await fetch(`${url}/_sandbox/state`)).json()) as SandboxState };
}
