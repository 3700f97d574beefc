// The CLI's callback commands, the twin of Settings → Callback listener: show, enable with a port and a
// public URL, set, disable; the same checks as the UI (0.0.0.0 is no public URL), the path secret only
// inside the URL the gateway is given; and a LIVE profile on http:// refused when added.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../../main/cli/index';
import { MemoryKeyStore } from '../../../main/keys/key-store';

const home = mkdtempSync(join(tmpdir(), 'desk-cli-callbacks-'));
const keyStore = new MemoryKeyStore();

async function cli(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(['--home', home, ...args], { keyStore, io: { stdout: (t) => void (out += t), stderr: (t) => void (err += t) } });
  return { code, out, err };
}

interface ShowJson {
  callback: { enabled: boolean; host: string; port: number; url: string | null };
  gatewayUrl: string | null;
  listener: { state: string };
}

describe('CLI callbacks', () => {
  it('shows, enables, sets and disables the listener of a profile', async () => {
    expect((await cli('profiles', 'add', '--name', 'Shop', '--base-url', 'http://127.0.0.1:9', '--merchant-code', 'M1')).code).toBe(0);

    const off = await cli('callbacks', 'show');
    expect(off).toMatchObject({ code: 0, err: '' });
    expect(off.out).toContain('Callbacks for shop: disabled');

    const on = await cli('--json', 'callbacks', 'enable', '--port', '8799', '--public-url', 'https://desk.example.com/hooks');
    expect(on.code).toBe(0);
    const shown = JSON.parse(on.out) as ShowJson;
    expect(shown.callback).toEqual({ enabled: true, host: '127.0.0.1', port: 8799, url: 'https://desk.example.com/hooks' });
    expect(shown.gatewayUrl).toMatch(/^https:\/\/desk\.example\.com\/hooks\/callbacks\/[A-Za-z0-9_-]{43}$/);
    // Not started by a command that only changes settings.
    expect(shown.listener.state).toBe('stopped');

    // The secret shows only inside that URL, not as a profile field.
    const profile = await cli('--json', 'profiles', 'show');
    expect(profile.out).not.toContain('callbackSecret');
    expect(profile.out).not.toContain(shown.gatewayUrl!.split('/').pop());

    const refused = await cli('callbacks', 'set', '--public-url', 'http://0.0.0.0:8799');
    expect(refused.code).not.toBe(0);
    expect(refused.err).toMatch(/public callback URL must name a host the gateway can reach/);

    const loopback = JSON.parse((await cli('--json', 'callbacks', 'set', '--no-public-url')).out) as ShowJson;
    expect(loopback.callback.url).toBeNull();
    expect(loopback.gatewayUrl).toMatch(/^http:\/\/127\.0\.0\.1:8799\/callbacks\/[A-Za-z0-9_-]{43}$/);
    expect(loopback.gatewayUrl!.split('/').pop()).toBe(shown.gatewayUrl!.split('/').pop());

    const nothing = await cli('callbacks', 'set');
    expect(nothing.code).toBe(2);
    expect(nothing.err).toContain('nothing to change');

    const disabled = await cli('callbacks', 'disable');
    expect(disabled.code).toBe(0);
    expect(disabled.out).toContain('Callbacks for shop: disabled');
    expect(disabled.out).toContain('(nothing: callbacks disabled)');
  });

  it('refuses a LIVE profile on http:// with the reason', async () => {
    const r = await cli('profiles', 'add', '--name', 'Live shop', '--base-url', 'http://gw.example.com', '--merchant-code', 'M2', '--environment', 'LIVE');
    expect(r.code).not.toBe(0);
    expect(r.err).toContain('a LIVE profile must use an https:// base URL (got http://gw.example.com); only TEST profiles may use http://');
  });
});
