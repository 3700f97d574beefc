// Stopping `npm run sandbox` by npm's PID stops the sandbox: the signal does not travel down npm → sh → tsx →
// node, so the sandbox watches that chain (sandbox/parent-watch.ts). Before, it kept listening on its port.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '../../..');
const linux = process.platform === 'linux';
if (!linux) console.log('stop-with-npm: skipped, the sandbox watches its npm through /proc, which only Linux has');

async function listening(port: number): Promise<boolean> {
  try {
    await fetch(`http://127.0.0.1:${port}/_sandbox/state`, { signal: AbortSignal.timeout(2000) });
    return true;
  } catch {
    return false;
  }
}

describe.skipIf(!linux)('npm run sandbox, stopped through npm', () => {
  it('stops listening once the npm that started it is killed by its PID', async () => {
    const npm = spawn('npm', ['run', '-s', 'sandbox', '--', '--port', '0'], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let port = 0;
    try {
      const line = await new Promise<string>((resolve, reject) => {
        let out = '';
        npm.stdout.on('data', (chunk: Buffer) => {
          out += chunk.toString();
          const found = /sandbox listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(out);
          if (found) resolve(found[0]);
        });
        npm.on('exit', (code) => reject(new Error(`npm exited with ${String(code)} before the sandbox listened`)));
      });
      port = Number(line.split(':').at(-1));
      expect(await listening(port)).toBe(true);
      npm.kill('SIGTERM');
      // Whatever the machine's pace: the port closes within the deadline, or the test says it stayed open.
      const deadline = Date.now() + 30_000;
      while ((await listening(port)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 250));
      expect(await listening(port), `the sandbox on port ${port} still answers after its npm was killed`).toBe(false);
    } finally {
      npm.kill('SIGKILL');
    }
  }, 90_000);
});
